#pragma once
// `dtsim plan SCENARIO --gpus N[,M...]`: the best ways to split the scenario's model over N devices. Every
// candidate split (plan_candidates.hpp) is screened by the scenario's checks and the memory model and ranked
// by a closed-form estimate (plan_search.hpp), then the best `top` of each device count are simulated with the
// scenario's own network model, as a sweep of points (resumable, in parallel processes), and ordered by the
// objective. Writes plan.csv, plan_candidates.csv, report.html and each count's generated scenario and runs.

#include "sim/checks/registries.hpp"
#include "sim/plan/plan_candidates.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::app {

struct PlanOptions {
  std::filesystem::path scenario_file;
  std::vector<int> devices;                   ///< the device counts to plan for, at least one
  PlanSpace space;                            ///< the degrees and choices the user fixed
  int top = 20;                               ///< candidates simulated per device count
  std::optional<double> max_memory_bytes;     ///< a device's memory allowed, below its capacity
  std::string objective = "tokens_per_s";     ///< tokens_per_s, cost or energy
  std::optional<std::filesystem::path> output_folder;  ///< default: out/<scenario name>-plan
  std::optional<std::uint64_t> seed;
  int jobs = 0;
  bool force = false;
  bool quiet = false;
  std::optional<std::filesystem::path> confine;
  std::vector<std::filesystem::path> plugins;
  std::filesystem::path executable;
  std::function<void(const std::string&)> progress_to;
};

/// Plans into the output folder and returns it, replacing an earlier plan there (its other device counts' runs
/// included). Throws core::InputError for a scenario that cannot be planned (a sweep of its own, a model trained for
/// real, several node groups, a device count that does not fill whole nodes or over which no candidate fits, an
/// objective the scenario cannot price) or a folder it cannot write (a link to nothing, other files) before anything
/// is written.
std::filesystem::path plan_command(const PlanOptions& options, const Registries& registries);

}  // namespace dtsim::app
