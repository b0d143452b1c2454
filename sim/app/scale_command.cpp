#include "sim/app/scale_command.hpp"

#include "analysis/run_summary.hpp"
#include "analysis/scaling_report.hpp"
#include "sim/app/run_command.hpp"
#include "sim/app/sweep_runner.hpp"
#include "sim/checks/scenario_data.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/result_folder.hpp"
#include "sim/plan/plan_search.hpp"
#include "sim/plan/study_scenario.hpp"
#include "sim/scenario/parallel_axes.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace dtsim::app {
namespace {

[[noreturn]] void refuse(const std::filesystem::path& file, const std::string& key, const std::string& message,
                         const std::string& hint) {
  core::Diagnostic diagnostic;
  diagnostic.where.file = file.string();
  diagnostic.key = key;
  diagnostic.message = message;
  diagnostic.hint = hint;
  throw core::InputError(std::move(diagnostic));
}

std::string yaml_list(const std::vector<std::int64_t>& values) {
  std::string out;
  for (const std::int64_t value : values) out += (out.empty() ? "" : ", ") + std::to_string(value);
  return "[" + out + "]";
}

/// Where the scenario declares its batch, and the key it declares: a study's refusal of the batch points there.
core::Diagnostic at_batch(const ScaleOptions& options, const scenario::Scenario& base) {
  core::Diagnostic out;
  out.where = base.training.batch_at;
  if (out.where.file.empty()) out.where.file = options.scenario_file.string();
  out.key = base.training.batch_declared_global ? "training.batch.global" : "training.batch.per_worker";
  return out;
}

/// The data-parallel replicas of each worker count: the count over the devices of one replica (tensor x
/// pipeline x context), refused where a count does not hold whole replicas or its replicas do not hold whole
/// expert groups.
std::vector<std::int64_t> replicas_of(const ScaleOptions& options, const scenario::Scenario& base) {
  const scenario::ParallelismSpec& plan = base.training.parallelism;
  // A replica's devices are the degrees of the axes beside the data axis; those carved out of it (expert) group
  // the replicas.
  std::int64_t width = 1;
  int grouped = 1;
  for (const scenario::AxisEntry& entry : scenario::parallel_axes()) {
    if (entry.carved_from == scenario::ParallelAxis::Data) {
      grouped *= plan.*(entry.declared);
    } else if (entry.axis != scenario::ParallelAxis::Data) {
      width *= plan.*(entry.declared);
    }
  }
  std::vector<std::int64_t> out;
  std::vector<std::int64_t> fitting;
  for (const int n : options.workers) {
    out.push_back(n / width);
    if (n % width == 0 && (n / width) % grouped == 0) fitting.push_back(n);
  }
  if (fitting.size() != options.workers.size()) {
    refuse(options.scenario_file, "training.parallelism",
           fmt::format("a scaling study grows the data-parallel replicas of {} devices each (tensor {} x pipeline {} x "
                       "context {}){}, and {} of the worker counts do not hold whole ones",
                       width, plan.tensor, plan.pipeline, plan.context,
                       grouped > 1 ? fmt::format(" in expert groups of {}", grouped) : "",
                       options.workers.size() - fitting.size()),
           fitting.empty() ? fmt::format("choose multiples of {} workers", width * grouped)
                           : fmt::format("worker counts that do: {}", yaml_list(fitting)));
  }
  return out;
}

/// Each worker count's node count, refused where the count does not fill whole nodes.
std::vector<std::int64_t> node_counts(const ScaleOptions& options, const scenario::Scenario& base) {
  std::vector<std::int64_t> counts;
  if (base.cluster.nodes.empty()) return counts;
  const int devices = base.cluster.nodes.front().devices;
  for (const int n : options.workers) {
    if (n % devices != 0) {
      refuse(options.scenario_file, "cluster.nodes", fmt::format("{} workers do not fill whole nodes of {} devices", n, devices),
             "choose worker counts that are multiples of the devices per node");
    }
    counts.push_back(n / devices);
  }
  return counts;
}

/// The global batch of `workers` devices under `mode` with re-planned splits: strong keeps the scenario's; weak
/// keeps the batch per device, the replicas' sizes changing with the split.
std::int64_t planned_batch(const ScaleOptions& options, const scenario::Scenario& base, analysis::ScalingMode mode,
                           int workers) {
  const std::int64_t global = planner::global_batch(base.training);
  if (mode == analysis::ScalingMode::Strong) return global;
  if ((global * workers) % base.cluster.workers != 0) {
    core::Diagnostic d = at_batch(options, base);
    d.message = fmt::format("weak scaling with --plan keeps the batch per device, {} samples over {} devices, which {} "
                            "devices cannot keep in whole samples",
                            global, base.cluster.workers, workers);
    d.hint = "choose worker counts that are multiples of the scenario's over the greatest common divisor of its batch";
    throw core::InputError(std::move(d));
  }
  return global * workers / base.cluster.workers;
}

/// A worker count's best split under `--plan`, for a global batch: its name, its sweep point, the candidates.
struct PlannedPoint {
  std::string split;
  std::string point;
  std::size_t candidates = 0;
};

/// The points already planned, by workers and global batch: weak and strong scaling share the scenario's own.
using PlannedPoints = std::map<std::pair<int, std::int64_t>, PlannedPoint>;

/// The best estimate of every candidate over `workers` devices keeping `batch` (plan_search.hpp).
PlannedPoint plan_point(const ScaleOptions& options, const scenario::ScenarioFormat& format,
                        const scenario::Scenario& base, const models::ModelProfile& profile, int workers,
                        std::int64_t batch, const std::filesystem::path& generated,
                        const checks::Registries& registries) {
  // Only the best is wanted: the search keeps it and sets every other row aside.
  const planner::SearchLimits limits{
      .max_memory_bytes = options.max_memory_bytes, .bounds = {}, .keep = 1, .pinned = {}};
  const planner::DeviceSearch found =
      planner::search_devices(options.space, limits, workers, batch, base, profile, format,
                              {options.scenario_file, generated, options.confine, {}}, registries);
  const auto candidates = static_cast<std::size_t>(found.candidates + found.undivided);
  const analysis::PlanRow* best = found.best();
  if (best == nullptr) {
    planner::refuse_unfit(found, options.space, limits, profile.shape, options.scenario_file,
                          "choose other worker counts with --workers");
  }
  return {best->split, planner::sweep_point_yaml(found.candidate_of(*best), batch, base), candidates};
}

/// The generated scenario of one mode under `--plan`: the user's scenario included, with one point per worker
/// count split as the best estimate of every candidate.
std::string planned_scenario(const ScaleOptions& options, const scenario::ScenarioFormat& format,
                             const scenario::Scenario& base, analysis::ScalingMode mode,
                             const std::filesystem::path& generated, const checks::Registries& registries,
                             PlannedPoints& planned) {
  const models::ModelProfile profile = planner::profile_of(base, registries);
  std::vector<std::string> points;
  for (const int n : options.workers) {
    const std::int64_t batch = planned_batch(options, base, mode, n);
    auto found = planned.find({n, batch});
    if (found == planned.end()) {
      found = planned.emplace(std::pair{n, batch}, plan_point(options, format, base, profile, n, batch, generated, registries)).first;
    }
    const PlannedPoint& chosen = found->second;
    if (!options.quiet) {
      fmt::print("{} scaling, {} devices: {} (the best estimate of {} candidates)\n", analysis::mode_name(mode), n,
                 chosen.split, chosen.candidates);
    }
    points.push_back(chosen.point);
  }
  return planner::points_scenario(
      fmt::format("A {} scaling study of {}, written by `dtsim scale --plan`: the scenario over the "
                  "worker counts, each split as the plan's best estimate{}.",
                  analysis::mode_name(mode), planner::yaml_quoted(options.scenario_file.filename().string()),
                  mode == analysis::ScalingMode::Strong ? ", the global batch kept" : ", the batch per device kept"),
      options.scenario_file, points);
}

/// "a", "a and b", "a, b and c".
std::string and_listed(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

/// Refuses a strong study where the replicas of a worker count (`replicas`, per count) cannot split the scenario's
/// global batch evenly, at the batch the scenario declares, naming each such count.
void check_strong_batch(const ScaleOptions& options, const scenario::Scenario& base,
                        const std::vector<std::int64_t>& replicas) {
  const std::int64_t per_replica = base.training.batch_per_worker;
  const std::int64_t global = per_replica * base.training.parallelism.data;
  // Without model parallelism each worker is a replica: the count alone says it.
  const bool split = base.training.parallelism.is_model_parallel();
  std::vector<std::string> uneven;
  std::vector<std::int64_t> fitting;
  for (std::size_t i = 0; i < replicas.size(); ++i) {
    const int workers = options.workers[i];
    if (global % replicas[i] == 0) {
      fitting.push_back(workers);
    } else {
      uneven.push_back(split ? fmt::format("{} workers ({} replicas)", workers, replicas[i])
                             : fmt::format("{} workers", workers));
    }
  }
  if (uneven.empty()) return;
  core::Diagnostic d = at_batch(options, base);
  d.message = fmt::format("strong scaling keeps the global batch, {} ({} replicas x {}), which {} cannot split evenly "
                          "over their replicas",
                          global, base.training.parallelism.data, per_replica, and_listed(uneven));
  d.hint = fitting.empty() ? "choose worker counts whose replicas divide the global batch"
                           : fmt::format("worker counts that divide it: {}", yaml_list(fitting));
  throw core::InputError(std::move(d));
}

/// The generated scenario of one mode: the user's scenario included, with a zip sweep over the worker counts
/// (and, under model parallelism, the data-parallel degree they give).
std::string mode_scenario(const ScaleOptions& options, const scenario::Scenario& base, analysis::ScalingMode mode) {
  const auto& file = options.scenario_file;
  std::vector<std::int64_t> workers(options.workers.begin(), options.workers.end());
  std::string axes = fmt::format("    cluster.workers: {}\n", yaml_list(workers));
  const std::vector<std::int64_t> replicas = replicas_of(options, base);
  if (base.training.parallelism.is_model_parallel()) {
    axes += fmt::format("    training.parallelism.data: {}\n", yaml_list(replicas));
  }
  // A batch per replica (training.batch.per_worker): weak keeps it, strong splits the global batch.
  const std::int64_t per_replica = base.training.batch_per_worker;
  const std::int64_t global = per_replica * base.training.parallelism.data;
  std::vector<std::int64_t> batches(replicas.size(), per_replica);
  if (mode == analysis::ScalingMode::Strong) {
    check_strong_batch(options, base, replicas);
    for (std::size_t i = 0; i < replicas.size(); ++i) batches[i] = global / replicas[i];
  }
  // The batch as the scenario gives it: a declared global batch grows under weak scaling and stays under
  // strong; a batch per replica stays under weak and shrinks under strong.
  if (base.training.batch_declared_global && mode == analysis::ScalingMode::Weak) {
    std::vector<std::int64_t> globals;
    for (const std::int64_t r : replicas) globals.push_back(per_replica * r);
    axes += fmt::format("    training.batch.global: {}\n", yaml_list(globals));
  } else if (!base.training.batch_declared_global && mode == analysis::ScalingMode::Strong) {
    axes += fmt::format("    training.batch.per_worker: {}\n", yaml_list(batches));
  }
  if (!base.cluster.nodes.empty()) axes += fmt::format("    cluster.nodes.0.count: {}\n", yaml_list(node_counts(options, base)));
  return fmt::format(
      "# A {} scaling study of {}, written by `dtsim scale`: the scenario over the worker counts{}.\n"
      "include: {}\nsweep:\n  combine: zip\n  axes:\n{}",
      analysis::mode_name(mode), planner::yaml_quoted(file.filename().string()),
      mode == analysis::ScalingMode::Strong ? ", the global batch split over them" : ", each with its batch",
      planner::yaml_quoted(std::filesystem::absolute(file).string()), axes);
}

/// A study writes its own files into its folder, which may therefore hold nothing else: a folder of the
/// user's files is refused before anything is simulated, never written into.
void refuse_foreign_files(const std::filesystem::path& folder) {
  check_study_folder(folder, "a scaling study");
  std::error_code ignored;
  if (!std::filesystem::exists(folder, ignored)) return;
  // Each name a study writes, and whether it writes a folder there (a mode's runs) or a file.
  const std::map<std::string, bool> own{{"weak", true},         {"strong", true},       {"weak.yaml", false},
                                        {"strong.yaml", false}, {"scaling.csv", false}, {"report.html", false}};
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    const auto found = own.find(name);
    const bool written =
        found != own.end() && (found->second ? entry.is_directory(ignored) : entry.is_regular_file(ignored));
    if (!written && name.front() != '.') {
      refuse(folder, "",
             fmt::format("the folder holds '{}', which is not part of a scaling study: a study writes weak/, strong/, "
                         "scaling.csv and report.html there",
                         name),
             "give another folder with -o");
    }
  }
}

/// Removes the runs and scenario of each mode an earlier study into `folder` ran and this one does not: the folder
/// holds one study, never the new one beside the rest of an old one.
void remove_other_modes(const std::filesystem::path& folder, const std::vector<analysis::ScalingMode>& modes) {
  for (const analysis::ScalingMode mode : {analysis::ScalingMode::Weak, analysis::ScalingMode::Strong}) {
    if (std::find(modes.begin(), modes.end(), mode) != modes.end()) continue;
    const std::string name(analysis::mode_name(mode));
    for (const std::filesystem::path& path : {folder / name, folder / (name + ".yaml")}) {
      std::error_code error;
      std::filesystem::remove_all(path, error);
      if (error) core::throw_write_error(path, error.message());
    }
  }
}

/// Refuses what a scaling study cannot vary: a sweep of its own, several jobs on one cluster, tensor or pipeline
/// parallelism, several node groups, a worker count given twice.
void refuse_unscalable(const ScaleOptions& options, const scenario::ScenarioDocument& document) {
  if (document.points.size() != 1) {
    refuse(options.scenario_file, "sweep", "a scaling study sweeps the workers itself; this scenario has a sweep of its own",
           "run `dtsim scale` on a scenario without `sweep:` (one of its points, written out)");
  }
  const scenario::Scenario& base = document.points.front();
  if (!base.jobs.empty()) {
    // Each point would be a cluster run, whose summary holds no one run's scaling figures: refused before the
    // points are simulated.
    throw core::InputError(core::Diagnostic{
        base.jobs.front().where, "jobs",
        fmt::format("a scaling study grows one job over the worker counts, and this scenario shares the cluster "
                    "between jobs ({} in `jobs`)",
                    base.jobs.size()),
        "scale one job's scenario: its sections at the top level, without `jobs:`"});
  }
  if (options.plan && !base.model.timing_only) {
    refuse(options.scenario_file, "model.kind",
           fmt::format("--plan splits a layer table (a `profile:` model), and '{}' trains for real", base.model.kind.value),
           "scale a model trained for real without --plan");
  }
  if (base.cluster.nodes.size() > 1) {
    refuse(options.scenario_file, "cluster.nodes", "a scaling study grows one kind of node; this cluster has several",
           "declare one node group");
  }
  std::set<int> seen;
  for (const int count : options.workers) {
    if (!seen.insert(count).second) {
      refuse("dtsim scale", "--workers", fmt::format("the worker count {} is given twice", count),
             "give each count once, such as 1,2,4,8");
    }
  }
}

/// Writes the study of `mode` (its scenario `text`, read as `points`) under `folder`, runs its points, and
/// reads back what each measured.
analysis::ScalingStudy run_study(const ScaleOptions& options, const scenario::ScenarioFormat& format, analysis::ScalingMode mode,
                                 const std::string& text, const scenario::ScenarioDocument& points,
                                 const std::filesystem::path& folder) {
  const std::string name(analysis::mode_name(mode));
  const RunCommandOptions run = study_sweep_options(options, folder / (name + ".yaml"), text, name);
  if (!options.quiet) fmt::print("{} scaling: {} points\n", name, points.points.size());
  run_sweep(run, format, points, folder / name);
  std::vector<analysis::ScalingPoint> measured;
  for (const auto& point : points.points) {
    std::string reason;
    const auto summary = core::read_input_file(folder / name / point.sweep_point / "summary.json", std::uintmax_t{1} << 30U, reason);
    if (!summary) static_cast<void>(analysis::read_run_summary(folder / name / point.sweep_point, format.registries().strategies));  // names the file
    measured.push_back(analysis::scaling_point(nlohmann::json::parse(*summary)));
  }
  return analysis::scaling_study(mode, std::move(measured));
}

}  // namespace

std::filesystem::path scale_command(const ScaleOptions& options, const checks::Registries& registries) {
  const scenario::ScenarioFormat format(registries);
  if (options.plan) planner::check_space_bounds(options.space, planner::degree_bounds(format), "dtsim scale");
  const scenario::ScenarioDocument document = checks::read_document_and_data(
      format, options.scenario_file, std::nullopt, checks::confined_load(options.confine));
  refuse_unscalable(options, document);
  const scenario::Scenario& base = document.points.front();
  if (options.plan) planner::check_memory_cap(options.max_memory_bytes, base, "dtsim scale");
  std::vector<analysis::ScalingMode> modes;
  if (options.mode != "strong") modes.push_back(analysis::ScalingMode::Weak);
  if (options.mode != "weak") modes.push_back(analysis::ScalingMode::Strong);
  const std::filesystem::path folder =
      options.output_folder.value_or(std::filesystem::path("out") / (base.name + "-scaling"));
  core::SourcePosition named_at;
  named_at.file = options.scenario_file.string();
  checks::check_confined_output(folder, options.output_folder.has_value(), named_at, options.confine);
  refuse_foreign_files(folder);
  // The mode this study does not run is removed once it is done: its runs, too, must be results.
  for (const analysis::ScalingMode mode : {analysis::ScalingMode::Weak, analysis::ScalingMode::Strong}) {
    core::check_result_folder(folder / std::string(analysis::mode_name(mode)));
  }
  // Every mode's study is checked before anything is written: a study that cannot run leaves no files.
  std::vector<std::string> generated_texts;
  std::vector<scenario::ScenarioDocument> generated_points;
  // A re-planned study writes each count's node count in its points; the counts must fill whole nodes all the same.
  if (options.plan) static_cast<void>(node_counts(options, base));
  PlannedPoints planned;
  for (const analysis::ScalingMode mode : modes) {
    const std::filesystem::path generated = folder / (std::string(analysis::mode_name(mode)) + ".yaml");
    if (options.plan) {
      generated_texts.push_back(planned_scenario(options, format, base, mode, generated, registries, planned));
    } else {
      generated_texts.push_back(mode_scenario(options, base, mode));
    }
    generated_points.push_back(
        planner::read_study_scenario(format, generated_texts.back(), generated, base, options.confine));
    planner::check_study_points(generated_points.back(), generated, base, registries);
  }
  std::filesystem::create_directories(folder);

  std::vector<analysis::ScalingStudy> studies;
  for (std::size_t m = 0; m < modes.size(); ++m) {
    studies.push_back(run_study(options, format, modes[m], generated_texts[m], generated_points[m], folder));
  }
  remove_other_modes(folder, modes);
  core::write_file_atomically(folder / "scaling.csv", analysis::scaling_csv(studies));
  core::write_file_atomically(folder / "report.html", analysis::scaling_report_html(base.name, studies));
  if (!options.quiet) {
    fmt::print("\n{}", analysis::scaling_table(studies));
    std::string runs;
    for (const analysis::ScalingMode mode : modes) runs += (runs.empty() ? "" : " and ") + std::string(analysis::mode_name(mode)) + "/";
    fmt::print("results in {}/: scaling.csv, report.html, and each point's run in {}\n", folder.string(), runs);
  }
  return folder;
}

}  // namespace dtsim::app
