#pragma once
// The declared scenario format (see schema.hpp): every key dtsim reads, with its type, unit, range,
// default and whether this version simulates it.

#include "sim/scenario/registries.hpp"
#include "sim/scenario/schema_names.hpp"

#include <string>

namespace dtsim::scenario {

/// The root mapping of a scenario file, generated from `registries`: the plug-ins a scenario may name and
/// the keys each declares (see ScenarioFormat, which builds it once).
SchemaNode scenario_schema(const Registries& registries);

/// The declaration of a dotted path through the mappings under `root` ("training.sync.strategy"), or nullptr.
const SchemaNode* find_schema(const SchemaNode& root, const std::string& dotted_path);

}  // namespace dtsim::scenario
