#pragma once
// Scenario files: YAML in, a validated Scenario out, or an InputError listing every problem.

#include "sim/scenario/scenario.hpp"

#include <filesystem>
#include <string>

namespace dtsim::scenario {

/// Reads and validates a scenario file. Throws core::InputError (file:line:col for each problem).
Scenario read_scenario_file(const std::filesystem::path& path);

/// Same, from text; `file_name` is used in messages and as the scenario's source.
Scenario read_scenario_text(const std::string& text, const std::string& file_name);

}  // namespace dtsim::scenario
