#pragma once
// `dtsim scale SCENARIO --workers 1,2,4,... --mode weak|strong|both`: a scaling study. Each mode is a sweep
// of the scenario over the worker counts (weak keeps each worker's batch; strong keeps the global batch,
// splitting it over the workers), run as sweeps are (points in parallel processes, resumable), then read
// back into scaling.csv, report.html and a table on stdout.

#include "sim/checks/registries.hpp"
#include "sim/plan/plan_candidates.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::app {

struct ScaleOptions {
  std::filesystem::path scenario_file;
  std::vector<int> workers;                            ///< the worker counts, at least one
  std::string mode = "both";                           ///< weak, strong or both
  /// `--plan`: each worker count split as `dtsim plan` would rank first by its estimate (a timing-only model),
  /// keeping what `space` fixes; weak scaling then keeps the batch per device, not per replica.
  bool plan = false;
  planner::PlanSpace space;
  std::optional<double> max_memory_bytes;  ///< `--max-memory`, for the re-planning
  std::optional<std::filesystem::path> output_folder;  ///< default: out/<scenario name>-scaling
  std::optional<std::uint64_t> seed;
  int jobs = 0;       ///< points at once; 0: the cores
  bool force = false; ///< run points again even when done
  bool quiet = false;
  std::optional<std::filesystem::path> confine;  ///< --confine DIR (canonical): files outside are refused
  std::vector<std::filesystem::path> plugins;  ///< loaded into the registries: every point loads them too
  std::filesystem::path executable;            ///< the dtsim that runs the points; empty: this process's
  /// As RunCommandOptions::progress_to, each line led by its mode ("weak: 2/5 points done, ...").
  std::function<void(const std::string&)> progress_to;
};

/// Runs the study into the output folder: weak/ and strong/ (sweep folders, one point per worker count,
/// with their generated scenarios weak.yaml and strong.yaml beside them), scaling.csv and report.html; an earlier
/// study there is replaced, the runs of a mode this one does not run included.
/// Throws core::InputError for a scenario that cannot be scaled as asked (a sweep of its own, tensor or
/// pipeline parallelism, a global batch the workers cannot split evenly, nodes the workers do not fill).
/// Returns the study's folder.
std::filesystem::path scale_command(const ScaleOptions& options, const checks::Registries& registries);

}  // namespace dtsim::app
