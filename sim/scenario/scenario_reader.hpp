#pragma once
// Scenario files in, validated Scenario structs out: load (with includes), expand the sweep, validate
// every point against the schema, build the structs. Every problem of the file is reported at once, as
// one core::InputError.

#include "sim/scenario/config_loader.hpp"
#include "sim/scenario/config_node.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/scenario_format.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::scenario {

struct ScenarioDocument {
  /// One scenario per sweep point, in sweep order; exactly one without a sweep.
  std::vector<Scenario> points;
  /// The document as dtsim understood it: includes merged, defaults filled (those every point shares),
  /// the sweep kept. Reading it back gives the same points.
  ConfigNode resolved;
};

/// With `only_point`, the document holds that sweep point alone (the others are named but not validated), or
/// InputError lists the points there are.
ScenarioDocument read_scenario_document_file(const ScenarioFormat& format, const std::filesystem::path& path,
                                             const std::optional<std::string>& only_point = std::nullopt,
                                             const LoadOptions& options = {});
ScenarioDocument read_scenario_document_text(const ScenarioFormat& format, const std::string& text,
                                             const std::string& file_name, const LoadOptions& options = {});

/// A document's `data` section and seed, validated, defaults filled.
struct DataSection {
  ConfigNode data;
  std::uint64_t seed = 1;
};

/// The data section of the file at `path` when none of `problems` (what reading it found) is in that
/// section or the seed, and no sweep changes them: sound enough for its data set to read the data file,
/// so that one run reports the file's problems beside the other sections'.
std::optional<DataSection> sound_data_section(const SchemaNode& schema, const std::filesystem::path& path,
                                              const std::vector<core::Diagnostic>& problems);

/// A scenario file without a sweep (or a sweep of one point).
Scenario read_scenario_file(const ScenarioFormat& format, const std::filesystem::path& path);
Scenario read_scenario_text(const ScenarioFormat& format, const std::string& text, const std::string& file_name);

}  // namespace dtsim::scenario
