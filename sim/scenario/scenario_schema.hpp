#pragma once
// The declared scenario format (see schema.hpp): every key dtsim reads, with its type, unit, range,
// default and whether this version simulates it.

#include "sim/scenario/schema_names.hpp"

#include <string>

namespace dtsim::scenario {

/// The root mapping of a scenario file. Built once; safe to share.
const SchemaNode& scenario_schema();

/// The declaration of a dotted path through mappings ("training.sync.strategy"), or nullptr.
const SchemaNode* find_schema(const std::string& dotted_path);

}  // namespace dtsim::scenario
