#pragma once
// The scenario reference tables of docs/scenario-reference.md, generated from the schema.

#include "sim/scenario/schema_names.hpp"

#include <string>

namespace dtsim::scenario {

/// Markdown: one table per top-level section, one row per key (dotted path, type and unit, default,
/// allowed values or range, description, when it applies, whether it is supported yet).
std::string reference_markdown(const SchemaNode& root);

}  // namespace dtsim::scenario
