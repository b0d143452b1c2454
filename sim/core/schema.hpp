#pragma once
// The scenario format, declared once as data. The validator, `dtsim explain` (defaults), `dtsim schema`
// (JSON Schema) and docs/scenario-reference.md are all derived from these declarations, so the reader,
// the editor support and the reference cannot drift apart. It lives in core so that every plug-in can
// declare its own parameters with it (sim/scenario assembles the whole format from them).

#include "sim/core/units.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace dtsim::core {

enum class ValueKind {
  Map,         ///< fixed keys, declared as children
  Dictionary,  ///< user-chosen keys, every value shaped like children[0]
  List,        ///< every item shaped like children[0]
  String,
  Choice,      ///< one of `choices`
  Integer,
  Number,
  Boolean,
  Quantity,    ///< a string with a unit, see `unit`
  FileList,    ///< a file name or a list of them (`include:`)
  AnyScalar,   ///< any single value, or a list of them for a list key (sweep values, checked once substituted)
};

using Unit = UnitFamily;

struct Choice {
  std::string name;
  std::string description;
  bool planned = false;  ///< part of the language, not simulated by this version
};

/// A key that only makes sense for some values of a sibling key (`staleness` only with `strategy: ssp`).
struct Condition {
  std::string sibling;
  std::vector<std::string> values;
};

struct SchemaNode {
  std::string key;
  ValueKind kind = ValueKind::String;
  std::string description;
  bool required = false;
  /// Parsed and validated, but asking for it gives "not supported yet".
  bool planned = false;
  /// YAML text of the default; empty when there is none.
  std::string default_value;
  std::int64_t integer_min = std::numeric_limits<std::int64_t>::min();
  std::int64_t integer_max = std::numeric_limits<std::int64_t>::max();
  double number_min = -std::numeric_limits<double>::infinity();
  double number_max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;  ///< Number and Quantity: the value must be greater than number_min
  /// Number: a count, refused with a fraction. A Number rather than an Integer so that counts of trillions may be
  /// written as `2e12`.
  bool whole_number = false;
  Unit unit = Unit::Duration;
  /// What the choices name, for messages: "topology", "sync strategy".
  std::string choice_label;
  std::vector<Choice> choices;
  std::vector<SchemaNode> children;
  Condition only_when;  ///< empty sibling: always applies
  std::string example;  ///< a YAML value, for hints and the reference
  /// A mapping whose keys are alternatives (`batch`: one of two; `stop`: the first reached): an including
  /// file's value replaces an included one whole instead of merging with it.
  bool replaced_whole = false;

  SchemaNode&& require() &&;
  SchemaNode&& plan() &&;
  SchemaNode&& fallback(std::string yaml) &&;
  SchemaNode&& when(std::string sibling, std::vector<std::string> values) &&;
  SchemaNode&& for_example(std::string yaml) &&;
  SchemaNode&& exclusive_min() &&;
  SchemaNode&& whole() &&;
  SchemaNode&& alternatives() &&;

  /// The child named `name` of a Map, or nullptr.
  [[nodiscard]] const SchemaNode* child(const std::string& name) const;
  [[nodiscard]] const Choice* choice(const std::string& name) const;
  [[nodiscard]] bool is_scalar() const;
  /// Choice names that this version simulates.
  [[nodiscard]] std::vector<std::string> supported_choices() const;
  [[nodiscard]] std::vector<std::string> all_choices() const;
};

SchemaNode map_of(std::string key, std::string description, std::vector<SchemaNode> children);
SchemaNode dictionary_of(std::string key, std::string description, SchemaNode element);
SchemaNode list_of(std::string key, std::string description, SchemaNode item);
SchemaNode text(std::string key, std::string description);
SchemaNode choice_of(std::string key, std::string label, std::string description, std::vector<Choice> choices);
SchemaNode integer(std::string key, std::int64_t min, std::int64_t max, std::string description);
SchemaNode number(std::string key, double min, double max, std::string description);
SchemaNode boolean(std::string key, std::string description);
SchemaNode quantity(std::string key, Unit unit, std::string description);
SchemaNode any_scalar(std::string key, std::string description);
SchemaNode file_list(std::string key, std::string description);

/// "a whole number", "a bandwidth such as \"10Gbps\"": what a value of this node looks like.
std::string expected_value(const SchemaNode& node);

}  // namespace dtsim::core
