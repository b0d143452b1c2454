#pragma once
// The scenario format as a JSON Schema (draft-07), for editors with a YAML language server.

#include "sim/scenario/schema_names.hpp"

#include <nlohmann/json.hpp>

namespace dtsim::scenario {

/// JSON Schema of a document shaped by `root`. Accepts every spelling the reader accepts, planned keys
/// and values included (those are valid language that this version reports as not supported yet).
nlohmann::ordered_json to_json_schema(const SchemaNode& root);

}  // namespace dtsim::scenario
