#pragma once
// `dtsim run` on a scenario with `jobs:`: the jobs on one cluster (runtime/cluster_run.hpp), each replayed alone
// from the same start on the same devices to measure what the others cost it, and each pair that met on a link
// replayed together for the interference matrix. Every simulation runs in a child process of its own (one engine
// per process); the results are written together, at once.

#include "sim/app/run_command.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/scenario_format.hpp"

#include <filesystem>

namespace dtsim::app {

void run_cluster_jobs(const RunCommandOptions& options, const scenario::Scenario& scenario,
                      const std::filesystem::path& folder, const scenario::ScenarioFormat& format);

}  // namespace dtsim::app
