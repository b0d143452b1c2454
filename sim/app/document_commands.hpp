#pragma once
// The commands that read scenario files without simulating them: validate, explain, schema.

#include "sim/checks/registries.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/metrics/run_record.hpp"
#include "sim/topology/graph_statistics.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::app {

struct ValidateResult {
  std::string report;  ///< one "FILE: ok ..." line per valid file
  std::string errors;  ///< every diagnostic of every invalid file
  std::vector<core::Diagnostic> diagnostics;  ///< the problems `errors` reports, in its order
  bool ok = true;
};

/// `dtsim validate FILE...`: reads every file completely (all sweep points) and runs the checks that
/// need the plug-ins, without simulating.
/// With `confine` (canonical), includes and named files outside it are errors (`--confine DIR`).
ValidateResult validate_command(const std::vector<std::filesystem::path>& files, const checks::Registries& registries,
                                const std::optional<std::filesystem::path>& confine = std::nullopt);

/// `dtsim validate --json`: `diagnostics` as a JSON array, one record each in their order: {"file", "line",
/// "column", "key", "message", "hint", "included_from": [{"file", "line", "column"}, ...]} (innermost include
/// first; line and column 1-based, 0 where unknown; key and hint "" where none). The texts are as they are, not
/// escaped as the text report escapes them; bytes that are not UTF-8 become U+FFFD. "[]" where there are none.
std::string diagnostics_json(const std::vector<core::Diagnostic>& diagnostics);

/// `dtsim explain FILE`: the scenario as dtsim understands it, as YAML (includes merged, defaults filled).
/// Throws core::InputError when the file is invalid.
std::string explain_command(const std::filesystem::path& file, const checks::Registries& registries,
                            const std::optional<std::filesystem::path>& confine = std::nullopt);

/// One line about what a worker on one kind of device holds, and whether it fits.
std::string describe_memory(const metrics::DeviceMemory& memory);

/// One line about a built topology: counts, hops, the oversubscription its leaves were built with (where they
/// have uplinks) and its bisection bandwidth.
std::string describe_topology(const std::string& kind, const topology::GraphStatistics& stats);

/// `dtsim schema`: the JSON Schema of the scenario format, or with `reference` the Markdown tables of
/// docs/scenario-reference.md.
std::string schema_command(bool reference, const checks::Registries& registries);

}  // namespace dtsim::app
