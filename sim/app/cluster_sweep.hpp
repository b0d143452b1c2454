#pragma once
// A sweep of a scenario with `jobs:`: each point is a cluster run (cluster_command.hpp), whose summary.json holds the
// cluster's figures rather than one run's. sweep.csv and the table at the end compare them.

#include "sim/scenario/scenario_reader.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace dtsim::app {

/// The summary.json of a finished cluster run in `folder`; nullopt where there is none or it is not one.
std::optional<nlohmann::json> cluster_summary(const std::filesystem::path& folder);
/// Whether `point_folder` holds a finished cluster run's summary.
bool cluster_point_done(const std::filesystem::path& point_folder);
/// One row per point: the axes' values, the makespan, the mean wait, the devices' utilization, the mean and largest
/// slowdown of a job against itself alone. `table`: the same as a text table for the terminal.
std::string cluster_sweep_csv(const scenario::ScenarioDocument& document, const std::filesystem::path& folder, bool table);

}  // namespace dtsim::app
