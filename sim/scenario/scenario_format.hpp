#pragma once
// The scenario language of one program: the registries scenarios name plug-ins from, and the schema generated
// from them, built once. Everything that reads, checks or documents scenarios takes it, so that the format,
// the reader and the run know the same plug-ins (those built in and those loaded with --plugin).

#include "sim/scenario/registries.hpp"
#include "sim/scenario/scenario_schema.hpp"

#include <string>

namespace dtsim::scenario {

class ScenarioFormat {
 public:
  /// `registries` must outlive the format and gain no entries after it is built (plug-ins load first).
  explicit ScenarioFormat(const Registries& registries) : registries_(&registries), schema_(scenario_schema(registries)) {}

  [[nodiscard]] const Registries& registries() const { return *registries_; }
  [[nodiscard]] const SchemaNode& schema() const { return schema_; }
  /// The declaration of a dotted path ("training.sync.strategy"), or nullptr.
  [[nodiscard]] const SchemaNode* find(const std::string& dotted_path) const { return find_schema(schema_, dotted_path); }

 private:
  const Registries* registries_;
  SchemaNode schema_;
};

}  // namespace dtsim::scenario
