#include "sim/app/plan_command.hpp"

#include "analysis/plan_report.hpp"
#include "analysis/run_summary.hpp"
#include "sim/app/sweep_runner.hpp"
#include "sim/checks/scenario_data.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/config_view.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/name_match.hpp"
#include "sim/core/result_folder.hpp"
#include "sim/core/units.hpp"
#include "sim/plan/plan_search.hpp"
#include "sim/plan/study_scenario.hpp"
#include "sim/scenario/named_values.hpp"
#include "sim/scenario/parallel_axes.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dtsim::app {
namespace {

/// Why a plan refuses DualPipe, as a scenario's schedule or as --schedule.
constexpr const char* kDualPipeUnplanned =
    "a plan estimates each split's bubble in closed form, and DualPipe's two copies of the stages are not among the "
    "schedules it estimates";

[[noreturn]] void refuse(const std::filesystem::path& file, const std::string& key, std::string message, std::string hint) {
  throw core::InputError(core::Diagnostic{{file.string()}, key, std::move(message), std::move(hint)});
}

/// What a plan cannot search: a sweep of its own, several jobs on one cluster, a model trained for real, several
/// kinds of node.
void refuse_unplannable(const PlanOptions& options, const scenario::ScenarioDocument& document) {
  const auto& file = options.scenario_file;
  if (document.points.size() != 1) {
    refuse(file, "sweep", "a plan sweeps the splits itself; this scenario has a sweep of its own",
           "plan a scenario without `sweep:` (one of its points, written out)");
  }
  const scenario::Scenario& s = document.points.front();
  if (!s.jobs.empty()) {
    // A cluster run's summary has no one split's throughput to rank: refused before anything is simulated.
    throw core::InputError(core::Diagnostic{
        s.jobs.front().where, "jobs",
        fmt::format("a plan splits one job over the devices, and this scenario shares the cluster between jobs ({} "
                    "in `jobs`)",
                    s.jobs.size()),
        "plan one job's scenario: its sections at the top level, without `jobs:`"});
  }
  if (!s.model.timing_only) {
    refuse(file, "model.kind", fmt::format("a plan splits a layer table (a `profile:` model), and '{}' trains for real",
                                           s.model.kind.value),
           "plan a profile such as profile:llama2_70b; split a model trained for real by hand");
  }
  if (s.cluster.nodes.size() > 1) {
    refuse(file, "cluster.nodes", "a plan grows one kind of node; this cluster has several", "declare one node group");
  }
  if (s.training.parallelism.stage_split.kind == models::StageSplit::Kind::Layout) {
    throw core::InputError(core::Diagnostic{
        s.training.parallelism.stage_split_at, "training.parallelism.pipeline_layout",
        "a layout names the stages of one split, and a plan tries splits of other stage counts",
        "plan with pipeline_split: even (and pipeline_split_counts) or without a split; lay the chosen split out "
        "afterwards"});
  }
  if (s.training.parallelism.schedule == models::PipelineSchedule::DualPipe) {
    throw core::InputError(core::Diagnostic{
        s.training.parallelism.schedule_at, "training.parallelism.schedule",
        kDualPipeUnplanned,
        "plan under 1f1b or interleaved_1f1b; run the chosen split with schedule: dualpipe afterwards"});
  }
  if (options.objective != "tokens_per_s" && options.objective != "cost" && options.objective != "energy") {
    refuse("dtsim plan", "--objective", fmt::format("no objective '{}'", options.objective), "tokens_per_s, cost or energy");
  }
  // A run meters joules only under an `energy:` section; without one every plan's energy is unknown, and the
  // plans would be ranked by another figure than the one asked for.
  if (options.objective == "energy" && !s.energy.enabled) {
    refuse(file, "energy", "--objective energy ranks the plans by the joules their runs meter, and a run meters none "
                           "without an `energy:` section",
           "add `energy: {}` to the scenario (the devices' idle_power and busy_power, the catalog's or declared), or "
           "choose --objective tokens_per_s or cost");
  }
  std::set<int> seen;
  for (const int n : options.devices) {
    const int per_node = s.cluster.nodes.empty() ? 1 : s.cluster.nodes.front().devices;
    if (n % per_node != 0) {
      refuse("dtsim plan", "--gpus", fmt::format("{} devices do not fill whole nodes of {}", n, per_node),
             "give multiples of the devices per node");
    }
    if (!seen.insert(n).second) refuse("dtsim plan", "--gpus", fmt::format("{} is given twice", n), "give each count once");
  }
}

/// The title of the scenario of a device count's best points.
std::string points_title(const PlanOptions& options, int devices) {
  return fmt::format("The best splits of {} over {} devices, written by `dtsim plan`.",
                     planner::yaml_quoted(options.scenario_file.filename().string()), devices);
}

/// The device count `name` stands for where it is a plan's: "16-devices" (a count's runs) with `suffix` "", or
/// "16-devices.yaml" (its scenario) with ".yaml"; none for any other name.
std::optional<int> planned_count(const std::string& name, const std::string& suffix) {
  const std::string tail = "-devices" + suffix;
  if (name.size() <= tail.size() || name.compare(name.size() - tail.size(), tail.size(), tail) != 0) {
    return std::nullopt;
  }
  const std::string digits = name.substr(0, name.size() - tail.size());
  // The counts --gpus takes: 1 to 65,536, written without leading zeros.
  if (digits.size() > 5 || digits.front() == '0' || digits.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stoi(digits);
}

/// Whether `entry` is what a plan writes: its tables and page (files), and for any device count its runs (a folder)
/// and scenario (a file). An earlier plan's counts are a plan's too: the new plan replaces them with the rest.
bool written_by_a_plan(const std::filesystem::directory_entry& entry) {
  const std::string name = entry.path().filename().string();
  std::error_code ignored;
  if (planned_count(name, "")) return entry.is_directory(ignored);
  const bool file = name == "plan.csv" || name == "plan_candidates.csv" || name == "report.html" ||
                    planned_count(name, ".yaml").has_value();
  return file && entry.is_regular_file(ignored);
}

/// Refuses an output folder that is no folder a plan can make, or that holds files a plan does not write.
void refuse_foreign_files(const std::filesystem::path& folder) {
  check_study_folder(folder, "a plan");
  std::error_code ignored;
  if (!std::filesystem::exists(folder, ignored)) return;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name.front() != '.' && !written_by_a_plan(entry)) {
      refuse(folder, "",
             fmt::format("the folder holds '{}', which is not part of a plan: a plan writes plan.csv, "
                         "plan_candidates.csv, report.html, and N-devices/ with N-devices.yaml for each device count",
                         name),
             "give another folder with -o");
    }
  }
}

/// The device counts whose runs or scenario `folder` holds (an earlier plan's among them).
std::set<int> planned_counts(const std::filesystem::path& folder) {
  std::set<int> out;
  std::error_code missing;
  for (std::filesystem::directory_iterator entry(folder, missing), end; !missing && entry != end;
       entry.increment(missing)) {
    const std::string name = entry->path().filename().string();
    std::optional<int> n = planned_count(name, "");
    if (!n) n = planned_count(name, ".yaml");
    if (n) out.insert(*n);
  }
  return out;
}

/// Removes the runs and scenarios of the counts an earlier plan into `folder` had and this one has not: the folder
/// holds one plan, never the new one beside the rest of an old one.
void remove_other_counts(const std::filesystem::path& folder, const std::vector<int>& devices) {
  for (const int n : planned_counts(folder)) {
    if (std::find(devices.begin(), devices.end(), n) != devices.end()) continue;
    for (const std::string& name : {fmt::format("{}-devices", n), fmt::format("{}-devices.yaml", n)}) {
      std::error_code error;
      std::filesystem::remove_all(folder / name, error);
      if (error) core::throw_write_error(folder / name, error.message());
    }
  }
}

analysis::PlanMeasurement measured(const analysis::RunSummary& run, const scenario::Scenario& s, int devices,
                                   const std::string& folder) {
  analysis::PlanMeasurement m;
  m.iteration_s = run.iterations > 0 ? run.simulated_s / static_cast<double>(run.iterations) : 0.0;
  m.tokens_per_s = run.tokens_per_s.value_or(run.samples_per_s.value_or(0.0));
  m.model_flops_utilization = run.model_flops_utilization;
  m.peak_memory_bytes = run.peak_memory_bytes.value_or(0.0);
  const double units = m.tokens_per_s * run.simulated_s;
  if (run.energy_j && units > 0.0) m.energy_per_token_j = *run.energy_j / units;
  if (s.energy.price_per_device_hour && m.tokens_per_s > 0.0) {
    m.cost_per_million_tokens = *s.energy.price_per_device_hour * devices / 3600.0 / m.tokens_per_s * 1e6;
    // A budget's failures keep the devices busy for its recoveries and lost work as well: the device-hours of a
    // token are the failure-free ones over the goodput its projection expects.
    if (run.goodput_expected && *run.goodput_expected > 0.0) *m.cost_per_million_tokens /= *run.goodput_expected;
  }
  m.run_folder = folder;
  return m;
}

/// The value of `table` called `name`, none where no name is given; where `table` has no such name, throws
/// core::InputError at `flag` naming the closest and every name it has (the command line's own check, for Python).
template <class Enum>
std::optional<Enum> named_choice(const std::vector<scenario::NamedValue<Enum>>& table,
                                 const std::optional<std::string>& name, const std::string& command,
                                 const std::string& flag, const std::string& what) {
  if (!name) return std::nullopt;
  std::vector<std::string> names;
  for (const auto& entry : table) {
    if (entry.name == *name) return entry.value;
    names.emplace_back(entry.name);
  }
  std::string hint = "one of " + core::join_names(names);
  if (const auto closest = core::closest_name(*name, names)) hint = fmt::format("did you mean '{}'? {}", *closest, hint);
  throw core::InputError(core::Diagnostic{{command}, flag, fmt::format("unknown {} '{}'", what, *name), std::move(hint)});
}

}  // namespace

planner::PlanSpace plan_space(const PlanSpaceArguments& given, const std::string& command) {
  planner::PlanSpace out;
  std::vector<std::string> tried;
  for (const scenario::ParallelAxis axis : scenario::listing_order()) {
    const scenario::AxisEntry& entry = scenario::axis_entry(axis);
    if (entry.tries != nullptr) tried.emplace_back(entry.name);
  }
  for (const auto& [name, degree] : given.degrees) {
    const auto axis = scenario::axis_named(name);
    if (!axis || scenario::axis_entry(*axis).tries == nullptr) {
      throw core::InputError(core::Diagnostic{{command}, name, fmt::format("the planner tries no degree named '{}'", name),
                                              fmt::format("fix one of {}", fmt::join(tried, ", "))});
    }
    out.degree(*axis) = degree;
  }
  out.microbatches = given.microbatches;
  out.zero = given.zero;
  out.recomputation =
      named_choice(scenario::recomputations(), given.recomputation, command, "--recomputation", "recomputation");
  out.schedule =
      named_choice(scenario::pipeline_schedules(), given.schedule, command, "--schedule", "pipeline schedule");
  if (out.schedule == models::PipelineSchedule::DualPipe) {
    throw core::InputError(core::Diagnostic{{command}, "--schedule",
                                            kDualPipeUnplanned,
                                            "one of gpipe, 1f1b, interleaved_1f1b, zero_bubble"});
  }
  out.keep_placement = given.keep_placement;
  return out;
}

std::optional<double> memory_cap(const PlanSpaceArguments& given, const std::string& command) {
  if (!given.max_memory) return std::nullopt;
  const std::string hint = "give the memory a device may use as a size, such as 70GiB";
  double bytes = 0.0;
  try {
    bytes = core::parse_size(*given.max_memory).value();
  } catch (const core::UnitError& error) {
    throw core::InputError(core::Diagnostic{{command}, "--max-memory", error.what(), error.hint().empty() ? hint : error.hint()});
  }
  // A cap of nothing would discard every candidate, each for memory, and say less than this.
  if (bytes <= 0.0) {
    throw core::InputError(
        core::Diagnostic{{command}, "--max-memory", fmt::format("must be above zero, got \"{}\"", *given.max_memory), hint});
  }
  return bytes;
}

namespace {

/// Seconds between two lines of a search's progress written to a log rather than a terminal.
constexpr double kProgressLineSeconds = 10.0;

/// A search's progress: to the host's lines where it asked for them (Python), else on stderr: one line redrawn in
/// place on a terminal, as a run's progress is, and elsewhere (a log, a pipe) a line of its own every
/// kProgressLineSeconds, and one at the end after those; none under -q. A space of millions takes minutes to screen
/// (9.1 million candidates printed nothing for 300 s into a log).
std::function<void(const planner::SearchProgress&)> search_progress(const PlanOptions& options) {
  const auto text = [](const planner::SearchProgress& p) {
    const double share = p.total > 0 ? static_cast<double>(p.screened) / static_cast<double>(p.total) : 1.0;
    std::string out = fmt::format("{} devices: {}/{} candidates screened ({:.0f}%), {} fit", p.devices, p.screened,
                                  p.total, 100.0 * share, p.fitting);
    if (p.best_estimate_s > 0.0) out += fmt::format(", the best estimated at {:.4g} s an iteration", p.best_estimate_s);
    if (!p.finished && p.screened > 0) {
      out += fmt::format(", about {:.0f} s left", p.elapsed_s * static_cast<double>(p.total - p.screened) /
                                                     static_cast<double>(p.screened));
    }
    return out;
  };
  if (options.progress_to) return [to = options.progress_to, text](const planner::SearchProgress& p) { to(text(p)); };
  if (options.quiet) return {};
  if (::isatty(STDERR_FILENO) == 0) {
    // A search done within the first interval writes nothing; a longer one, its last line too.
    return [text, last = 0.0](const planner::SearchProgress& p) mutable {
      if (p.finished ? last == 0.0 : p.elapsed_s - last < kProgressLineSeconds) return;
      last = p.elapsed_s;
      fmt::print(stderr, "  {}\n", text(p));
      std::fflush(stderr);
    };
  }
  return [text](const planner::SearchProgress& p) {
    fmt::print(stderr, "\r  {}", text(p));
    if (p.finished) fmt::print(stderr, "\n");
    std::fflush(stderr);
  };
}

/// One device count's search, before anything is simulated: the study, and the scenario of its best points.
struct Search {
  analysis::PlanStudy study;
  std::string scenario_text;
  std::optional<scenario::ScenarioDocument> best;  ///< set once the best points are read
  std::vector<std::size_t> simulated_rows;         ///< the row of study.rows each of best's points stands for
  bool fits = false;                               ///< some candidate of this count fits
};

/// The row of `rows` whose split is `label` and that fits; none otherwise.
std::optional<std::size_t> fitting_row(const std::vector<analysis::PlanRow>& rows, const std::string& label) {
  const auto found =
      std::find_if(rows.begin(), rows.end(), [&](const analysis::PlanRow& row) { return row.split == label; });
  if (found == rows.end() || !found->discarded.empty()) return std::nullopt;
  return static_cast<std::size_t>(found - rows.begin());
}

/// The search of one device count. Where nothing fits, with `refuse_unfit_count` the plan stops there with why;
/// without, the count is listed with its discards and the other counts go on.
Search search(const PlanOptions& options, const scenario::ScenarioFormat& format, const scenario::Scenario& base,
              const models::ModelProfile& profile, const checks::Registries& registries,
              const std::filesystem::path& folder, int devices, bool refuse_unfit_count) {
  const auto started = std::chrono::steady_clock::now();
  const std::int64_t batch = planner::global_batch(base.training);
  const std::filesystem::path generated = folder / fmt::format("{}-devices.yaml", devices);
  // The search keeps the best the report draws (and --top), and the scenario's own split, to simulate beside them.
  const planner::SearchLimits limits{
      .max_memory_bytes = options.max_memory_bytes,
      .bounds = {},
      .keep = std::max(static_cast<std::size_t>(options.top), analysis::kDrawnCandidates),
      .pinned = {planner::own_candidate(base).label()}};
  const planner::SearchSource source{options.scenario_file, generated, options.confine, search_progress(options)};
  const planner::DeviceSearch found =
      planner::search_devices(options.space, limits, devices, batch, base, profile, format, source, registries);
  if (found.best() == nullptr && refuse_unfit_count) {
    planner::refuse_unfit(found, options.space, limits, profile.shape, options.scenario_file,
                          "plan other device counts with --gpus");
  }
  Search out;
  out.fits = found.best() != nullptr;
  out.study = {.devices = devices, .candidates = found.candidates + found.undivided, .rows = found.rows,
               .discards = found.discards, .objective = options.objective,
               .tokens_unit = profile.shape.sequence > 0 ? "tokens" : "samples", .fitting = found.fitting,
               .spilled = found.spilled};
  std::vector<std::string> points;
  for (std::size_t i = 0; i < out.study.rows.size(); ++i) {
    const analysis::PlanRow& row = out.study.rows[i];
    if (!row.discarded.empty() || static_cast<int>(points.size()) == options.top) break;
    if (!row.same_as.empty()) continue;
    points.push_back(planner::sweep_point_yaml(found.candidate_of(row), batch, base));
    out.simulated_rows.push_back(i);
  }
  // Beside the estimate's best, two it may misjudge are simulated: the scenario's own split, where it is one of
  // this count's candidates (the layout a plan has to beat), and the estimate's best split placed as the scenario
  // places its axes (placements are what the estimate knows least: Mixtral 8x7B's best split on 512 H100 ran
  // 1.613 s in the scenario's placement, estimated 1.815 s and never simulated, against 1.657 s in the one chosen).
  std::vector<planner::PlanCandidate> beside{planner::own_candidate(base)};
  if (const analysis::PlanRow* best = found.best(); best != nullptr && !points.empty()) {
    beside.push_back(planner::placed(found.candidate_of(*best), planner::core_order(base.training.parallelism)));
  }
  for (const planner::PlanCandidate& candidate : beside) {
    const std::optional<std::size_t> i = fitting_row(out.study.rows, candidate.label());
    if (!i || std::find(out.simulated_rows.begin(), out.simulated_rows.end(), *i) != out.simulated_rows.end()) continue;
    points.push_back(planner::sweep_point_yaml(found.candidate_of(out.study.rows[*i]), batch, base));
    out.simulated_rows.push_back(*i);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!options.quiet) {
    fmt::print("{} devices: {} candidates screened in {:.1f} s, {} fit; simulating the best {}\n", devices,
               out.study.candidates, wall, found.fitting, points.size());
    // Into a log or a pipe, each count's line as it is screened, not once every count is.
    std::fflush(stdout);
  }
  if (points.empty()) return out;
  out.scenario_text = planner::points_scenario(points_title(options, devices), options.scenario_file, points);
  out.best = planner::read_study_scenario(format, out.scenario_text, generated, base, options.confine);
  planner::check_study_points(*out.best, generated, base, registries);
  return out;
}

/// Simulates a search's best points into folder/<devices>-devices/ and records what each measured.
void simulate(const PlanOptions& options, const scenario::ScenarioFormat& format, const std::filesystem::path& folder,
              Search& found) {
  const int devices = found.study.devices;
  const std::string name = fmt::format("{}-devices", devices);
  const RunCommandOptions run = study_sweep_options(options, folder / (name + ".yaml"), found.scenario_text, name);
  const auto started = std::chrono::steady_clock::now();
  run_sweep(run, format, *found.best, folder / name);
  for (std::size_t point = 0; point < found.best->points.size(); ++point) {
    const scenario::Scenario& s = found.best->points[point];
    const std::string run_folder = name + "/" + s.sweep_point;
    const analysis::RunSummary summary =
        analysis::read_run_summary(folder / run_folder, format.registries().strategies);
    found.study.rows[found.simulated_rows[point]].simulated = measured(summary, s, devices, run_folder);
  }
  if (!options.quiet) {
    fmt::print("{} devices: {} simulated in {:.1f} s\n", devices, found.best->points.size(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
}

}  // namespace

std::filesystem::path plan_command(const PlanOptions& options, const checks::Registries& registries) {
  const scenario::ScenarioFormat format(registries);
  planner::check_space_bounds(options.space, planner::degree_bounds(format), "dtsim plan");
  const scenario::ScenarioDocument document = checks::read_document_and_data(
      format, options.scenario_file, std::nullopt, checks::confined_load(options.confine));
  refuse_unplannable(options, document);
  const scenario::Scenario& base = document.points.front();
  planner::check_memory_cap(options.max_memory_bytes, base, "dtsim plan");
  const models::ModelProfile profile = planner::profile_of(base, registries);
  const std::filesystem::path folder = options.output_folder.value_or(std::filesystem::path("out") / (base.name + "-plan"));
  core::SourcePosition named_at;
  named_at.file = options.scenario_file.string();
  checks::check_confined_output(folder, options.output_folder.has_value(), named_at, options.confine);
  refuse_foreign_files(folder);
  // An earlier plan's counts are removed once this plan is done: their runs must be results, as this plan's are.
  std::set<int> counts = planned_counts(folder);
  counts.insert(options.devices.begin(), options.devices.end());
  for (const int n : counts) core::check_result_folder(folder / fmt::format("{}-devices", n));
  // Every count is searched and its best points checked before anything is written.
  std::vector<Search> searches;
  // A count nothing fits is listed beside the others; where none fits, the first is searched again to say why.
  const bool one_count = options.devices.size() == 1;
  for (const int n : options.devices) {
    searches.push_back(search(options, format, base, profile, registries, folder, n, one_count));
  }
  if (std::none_of(searches.begin(), searches.end(), [](const Search& found) { return found.fits; })) {
    static_cast<void>(search(options, format, base, profile, registries, folder, options.devices.front(), true));
  }
  std::filesystem::create_directories(folder);
  std::vector<analysis::PlanStudy> studies;
  for (Search& found : searches) {
    if (found.best) simulate(options, format, folder, found);
    studies.push_back(std::move(found.study));
  }
  remove_other_counts(folder, options.devices);
  core::write_file_atomically(folder / "plan.csv", analysis::plan_csv(studies));
  core::write_file_atomically(folder / "plan_candidates.csv",
                              [&](std::ostream& out) { analysis::write_candidates_csv(studies, out); });
  core::write_file_atomically(folder / "report.html", analysis::plan_report_html(base.name, studies));
  if (!options.quiet) {
    fmt::print("\n{}", analysis::plan_table(studies));
    fmt::print("results in {}/: plan.csv, plan_candidates.csv, report.html, and each simulated plan's run\n", folder.string());
  }
  return folder;
}

}  // namespace dtsim::app
