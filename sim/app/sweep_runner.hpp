#pragma once
// Runs the points of a sweep. SimGrid allows one engine per process, so every point is simulated by a
// child `dtsim run --point LABEL`, several at once (`-j`).

#include "sim/app/run_command.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include <filesystem>

namespace dtsim::app {

/// Runs every point into `folder`/<label>/ and writes `folder`/sweep.csv (one row per point: its axes'
/// values and final figures), and report.html when asked. A point already done (its complete results in
/// the sweep's staging folder, or in `folder` from the same sweep) is not run again unless `options.force`.
/// Throws core::InputError naming the point when one fails, once the points running have ended.
void run_sweep(const RunCommandOptions& options, const scenario::ScenarioFormat& format,
               const scenario::ScenarioDocument& document, const std::filesystem::path& folder);

}  // namespace dtsim::app
