#pragma once
// Runs the points of a sweep. SimGrid allows one engine per process, so every point is simulated by a
// child `dtsim run --point LABEL`, one after the other.

#include "sim/app/run_command.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include <filesystem>

namespace dtsim::app {

/// Runs every point into `folder`/<label>/ and writes `folder`/sweep.csv (one row per point with its
/// final figures). Throws core::InputError naming the point when one fails.
void run_sweep(const RunCommandOptions& options, const scenario::ScenarioDocument& document,
               const std::filesystem::path& folder);

}  // namespace dtsim::app
