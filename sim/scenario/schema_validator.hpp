#pragma once
// Checks a ConfigNode tree against a SchemaNode and returns it with every applicable default filled in.
// All problems go to the sink, each at the line of the value (or key) at fault.

#include "sim/core/diagnostic.hpp"
#include "sim/scenario/config_node.hpp"
#include "sim/scenario/schema_names.hpp"

#include <string>

namespace dtsim::scenario {

/// Validates `value` against `schema`; `path` is its dotted key ("" for the document root). The result
/// has the schema's order of keys, defaults marked `defaulted`, and planned keys kept as written.
/// "Not supported yet" problems go to `unsupported` when given (the document is otherwise sound and can
/// still be cross-checked), else to `sink`.
ConfigNode validate_against(const ConfigNode& value, const SchemaNode& schema, const std::string& path,
                            core::DiagnosticSink& sink, core::DiagnosticSink* unsupported = nullptr);

/// Validates a whole scenario document against `schema`, the scenario format's.
ConfigNode validate_scenario_document(const SchemaNode& schema, const ConfigNode& root, core::DiagnosticSink& sink,
                                      core::DiagnosticSink* unsupported = nullptr);

/// "a.b" joined, or "b" under the root.
std::string dotted_key(const std::string& path, const std::string& key);

/// Whether `value` is a list of single values: a list key's value in a sweep.
bool is_scalar_list(const ConfigNode& value);

}  // namespace dtsim::scenario
