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
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::app {

struct PlanOptions {
  std::filesystem::path scenario_file;
  std::vector<int> devices;                   ///< the device counts to plan for, at least one
  planner::PlanSpace space;                   ///< the degrees and choices the user fixed
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

/// A plan's choices and memory cap as `dtsim plan`'s flags (and Python's dtsim.plan) give them: the degrees as
/// numbers, the recomputation, the schedule and the cap as text; unset where not given. The command line checks the
/// degrees' ranges as it parses them, Python as it is called.
struct PlanSpaceArguments {
  /// The degrees fixed, by their axis' name (`tensor`, `pipeline`, `context`, `expert`: sim/scenario/parallel_axes).
  std::map<std::string, int> degrees;
  std::optional<int> microbatches;
  std::optional<int> zero;
  std::optional<std::string> recomputation;  ///< none, selective or full
  std::optional<std::string> schedule;       ///< a pipeline schedule's name, such as 1f1b
  bool keep_placement = false;
  std::optional<std::string> max_memory;     ///< a size with its unit, such as 70GiB
};

/// The space `given` fixes. Throws core::InputError at the flag, as `command` ("dtsim plan") was given, for an
/// axis the planner does not try, or a recomputation or schedule of no such name, naming the closest and those
/// there are.
planner::PlanSpace plan_space(const PlanSpaceArguments& given, const std::string& command);

/// `given.max_memory` in bytes; none where not given. Throws core::InputError at --max-memory, as `command` was
/// given, for a text that is no size or a size that is not above zero.
std::optional<double> memory_cap(const PlanSpaceArguments& given, const std::string& command);

/// Plans into the output folder and returns it, replacing an earlier plan there (its other device counts' runs
/// included). Throws core::InputError for a scenario that cannot be planned (a sweep of its own, a model trained for
/// real, several node groups, a device count that does not fill whole nodes or over which no candidate fits, an
/// objective the scenario cannot price) or a folder it cannot write (a link to nothing, other files) before anything
/// is written.
std::filesystem::path plan_command(const PlanOptions& options, const checks::Registries& registries);

}  // namespace dtsim::app
