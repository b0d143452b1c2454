#pragma once
// The resolved scenario (includes merged, sweep values set, defaults filled) as JSON: exactly the keys and
// values `dtsim explain` prints as YAML, typed by the schema (whole numbers and numbers as JSON numbers,
// booleans as booleans, quantities as the text the user wrote: "10Gbps"). summary.json echoes it.

#include "sim/scenario/config_node.hpp"
#include "sim/scenario/schema_names.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace dtsim::scenario {

/// `tree` is a document `schema` (the scenario format's) validated; its scalars keep their YAML text where the
/// schema has no number or boolean for them. A null tree (a scenario built by hand, not read) gives null.
nlohmann::ordered_json resolved_json(const SchemaNode& schema, const ConfigNode& tree);

/// Names file names (`data.path`, a trace's `file`) absolutely, resolved against the file that wrote each:
/// a resolved document merges several files and must read back the same from anywhere.
void absolute_file_names(ConfigNode& tree);

/// Whether `entry` names a file (a `path` or `file` key holding text).
bool names_a_file(const ConfigEntry& entry);
/// The file `entry` names, relative to the file that wrote it unless absolute.
std::filesystem::path named_file(const ConfigEntry& entry);

}  // namespace dtsim::scenario
