#pragma once
// The scenario a study (`dtsim plan`, `dtsim scale`) generates: the user's scenario included, with a sweep of the
// points the study runs. It is read and its points checked before it is written (a study that cannot run writes
// nothing), so each problem is said where the user can read it: at the line of the user's scenario, with the point
// it is in named by its label, never at a line of a file that is not there.

#include "sim/checks/registries.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace dtsim::planner {

/// Reads `text`, a scenario a study generates to be written at `file`, which includes the user's scenario (`base`,
/// its one point, read from base.source), as the study's points will read it: under `confine`, the user's scenario
/// read outside it as the file named on the command line is. Throws core::InputError where it has problems, each
/// naming the points it is in, `file` left out of its include chain and a value `file` sets cited where the user's
/// scenario declares that key (or the nearest mapping above it that it declares).
scenario::ScenarioDocument read_study_scenario(const scenario::ScenarioFormat& format, const std::string& text,
                                               const std::filesystem::path& file, const scenario::Scenario& base,
                                               const std::optional<std::filesystem::path>& confine);

/// check_scenario on every point of a study's scenario (read_study_scenario's, to be written at `file`), all
/// problems together, each once, named and cited as read_study_scenario's are.
void check_study_points(const scenario::ScenarioDocument& document, const std::filesystem::path& file,
                        const scenario::Scenario& base, const checks::Registries& registries);

}  // namespace dtsim::planner
