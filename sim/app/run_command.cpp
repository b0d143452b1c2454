#include "sim/app/run_command.hpp"

#include "analysis/report_html.hpp"
#include "analysis/summary_table.hpp"
#include "sim/app/cluster_command.hpp"
#include "sim/app/slurm_sweep.hpp"
#include "sim/app/sweep_runner.hpp"
#include "sim/checks/host_memory.hpp"
#include "sim/checks/scenario_data.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/checks/simulation_memory.hpp"
#include "sim/checks/simulation_messages.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/core/name_match.hpp"
#include "sim/core/result_folder.hpp"
#include "sim/metrics/failure_schedule.hpp"
#include "sim/metrics/run_writers.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/runtime/observe/trace_recorder.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>

namespace dtsim::app {
namespace {

/// Progress as text, passed to `draw` at each whole percent and at least twice a second in between, so that a
/// long run's line keeps moving; `finished` with the last iteration. Wall-clock time decides only when to
/// draw, never anything simulated.
runtime::ProgressCallback progress_updates(std::function<void(const std::string& text, bool finished)> draw) {
  using Clock = std::chrono::steady_clock;
  return [draw = std::move(draw), last_percent = std::int64_t{-1},
          last_drawn = Clock::time_point{}](const runtime::Progress& progress) mutable {
    const std::int64_t percent = 100 * progress.iteration / progress.total_iterations;
    const Clock::time_point now = Clock::now();
    const bool finished = progress.iteration == progress.total_iterations;
    if (percent == last_percent && !finished && now - last_drawn < std::chrono::milliseconds(500)) return;
    last_percent = percent;
    last_drawn = now;
    draw(fmt::format("iteration {}/{} ({:3}%), simulated {:.6f} s", progress.iteration, progress.total_iterations,
                     percent, progress.sim_time_s),
         finished);
  };
}

/// A host's progress lines when it asked for them; else a one-line indicator on stderr, only on a terminal.
runtime::ProgressCallback run_progress(const RunCommandOptions& options) {
  if (options.progress_to) {
    return progress_updates([to = options.progress_to](const std::string& text, bool) { to(text); });
  }
  if (options.quiet || ::isatty(STDERR_FILENO) == 0) return {};
  return progress_updates([](const std::string& text, bool finished) {
    fmt::print(stderr, "\r  {}", text);
    if (finished) fmt::print(stderr, "\n");
    std::fflush(stderr);
  });
}

/// A run that met the failure limit spent its time recovering, not training: an error, not a result.
void refuse_runaway_failures(const scenario::Scenario& scenario, const metrics::RunRecord& record) {
  if (record.failures.size() < metrics::kFailureLimit) return;
  const scenario::FailureSpec& spec = scenario.failures;
  core::Diagnostic diagnostic;
  diagnostic.where = spec.mtbf_s ? spec.random_at : spec.where;
  diagnostic.key = spec.mtbf_s ? "failures.random.mtbf" : "failures";
  diagnostic.message = fmt::format("the job met {} failures by {:.6g} s of simulated time, the most a run may meet: "
                                   "failures this frequent leave no time to train",
                                   metrics::kFailureLimit, record.failures[metrics::kFailureLimit - 1].noticed_s);
  diagnostic.hint = spec.mtbf_s ? fmt::format("a worker fails every {:.3g} s on average; raise failures.random.mtbf "
                                              "(clusters see hours to days between failures of one device)",
                                              *spec.mtbf_s)
                                : "declare fewer failures";
  throw core::InputError(std::move(diagnostic));
}

/// The devices that compute some of the run's operation classes at the documented default efficiency.
std::string efficiency_notice(const scenario::Scenario& scenario, const runtime::TrainingSetup& setup) {
  std::vector<models::OpClass> used{models::OpClass::Gemm};
  if (runtime::is_timing_only(setup.mode)) {
    for (const models::LayerProfile& layer : setup.profile().layers) used.push_back(layer.op);
  }
  // One profile per device model: a cluster of 65,536 workers has a handful.
  std::vector<scenario::DeviceProfile> devices;
  const auto add = [&](const scenario::DeviceProfile& device) {
    const bool known = std::any_of(devices.begin(), devices.end(),
                                   [&](const scenario::DeviceProfile& d) { return d.name == device.name; });
    if (!known) devices.push_back(device);
  };
  add(scenario.cluster.device);
  for (const scenario::DeviceProfile& device : scenario.cluster.worker_devices) add(device);
  if (!setup.graph.servers().empty()) add(scenario.cluster.server_device);
  return compute::assumed_efficiency_notice(devices, used);
}

void run_one(const RunCommandOptions& options, scenario::Scenario scenario, const std::filesystem::path& folder,
             const scenario::ScenarioFormat& format) {
  const checks::Registries& registries = format.registries();
  if (options.seed) scenario.seed = *options.seed;
  for (scenario::JobSpec& job : scenario.jobs) {
    if (!options.seed) break;
    auto reseeded = std::make_shared<scenario::Scenario>(*job.scenario);
    reseeded->seed = *options.seed;
    job.scenario = std::move(reseeded);
  }
  if (!scenario.jobs.empty()) {
    run_cluster_jobs(options, scenario, folder, format);
    return;
  }
  // A budget's failures are projected (metrics/projection.hpp): its iterations are simulated without them.
  std::optional<scenario::Scenario> steady;
  if (scenario.failures_projected()) {
    checks::check_scenario(scenario, registries);
    steady = scenario;
    steady->failures.enabled = false;
  }
  const scenario::Scenario& simulated = steady ? *steady : scenario;
  runtime::TrainingSetup setup = checks::resolve_scenario(simulated, registries);
  setup.mirror_ranks = !options.every_rank;
  setup.values_apart = !options.values_by_message;
  setup.threads = options.threads;
  checks::check_simulation_memory(scenario, setup, checks::available_host_memory());
  checks::check_simulation_messages(simulated, setup);
  checks::check_address_space(scenario, setup, checks::address_space_limit());
  if (!options.quiet && !setup.backend_notice.empty()) fmt::print(stderr, "note: {}\n", setup.backend_notice);
  if (const std::string notice = efficiency_notice(scenario, setup); !options.quiet && !notice.empty()) {
    fmt::print(stderr, "note: {}\n", notice);
  }

  const bool report = options.report || scenario.outputs.report;
  // The report's Gantt view draws the timeline: recorded for it even when trace.json is not written.
  std::optional<runtime::TraceRecorder> trace;
  if (scenario.outputs.trace || report) {
    std::vector<std::string> hosts;
    for (const topology::NodeId node : setup.graph.workers()) hosts.push_back(setup.graph.node(node).name);
    for (const topology::NodeId node : setup.graph.servers()) hosts.push_back(setup.graph.node(node).name);
    trace.emplace(std::move(hosts), setup.graph,
                  runtime::TraceBounds{scenario.outputs.trace_iterations, scenario.outputs.trace_hosts,
                                       scenario.outputs.trace_events},
                  scenario.training.parallelism.pipeline > 1);
  }
  const auto started = std::chrono::steady_clock::now();
  const metrics::RunRecord record =
      runtime::run_training(simulated, setup, run_progress(options), trace ? &*trace : nullptr);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  refuse_runaway_failures(scenario, record);
  std::optional<metrics::Timeline> timeline;
  if (trace) timeline = trace->take();
  auto files = metrics::run_files(format.schema(), scenario, record, timeline ? &*timeline : nullptr);
  if (report) {
    const analysis::ReportRun drawn =
        analysis::report_run(std::map<std::string, std::string>(files.begin(), files.end()), folder.string());
    if (!scenario.outputs.trace) std::erase_if(files, [](const auto& file) { return file.first == "trace.json"; });
    files.emplace_back("report.html", analysis::report_html({drawn}));
  }
  metrics::write_run_outputs(folder, files);
  if (!options.quiet) {
    fmt::print("{}\n", analysis::summary_table(scenario, record, wall_s));
    if (scenario.outputs.trace && !timeline->cut_reason.empty()) {
      fmt::print("trace.json covers the run up to {:.6f} s of {:.6f} s: {}\n", timeline->until_s, record.simulated_s,
                 timeline->cut_reason);
    }
    std::string names;
    for (const auto& file : files) names += (names.empty() ? "" : ", ") + file.first;
    fmt::print("results in {}/: {}\n", folder.string(), names);
  }
}

/// `dtsim sweep` needs a sweep, and --slurm runs every point of one as a job array task.
void check_sweep_options(const RunCommandOptions& options, const scenario::ScenarioDocument& document) {
  core::Diagnostic diagnostic;
  diagnostic.where.file = options.scenario_file.string();
  diagnostic.key = options.slurm ? "--slurm" : "sweep";
  if (!options.slurm && document.resolved.find("sweep") == nullptr) {
    diagnostic.message = "dtsim sweep runs the points of a sweep, and the scenario has no sweep";
    diagnostic.hint = "use dtsim run, or give the scenario sweep.axes";
  } else if (!options.slurm) {
    return;
  } else if (!on_path("sbatch")) {
    diagnostic.message = "sbatch was not found on the PATH";
    diagnostic.hint = "install Slurm's client commands (Debian: slurm-client) on this machine, or run the sweep without "
                      "--slurm";
  } else if (options.point) {
    diagnostic.message = "--slurm submits every point of the sweep, and --point names one";
    diagnostic.hint = "leave out --point (points already done are not submitted again)";
  } else if (document.resolved.find("sweep") == nullptr) {
    diagnostic.message = "--slurm runs a sweep's points as a Slurm job array, and the scenario has no sweep";
    diagnostic.hint = "run it without --slurm, or give it sweep.axes";
  } else {
    return;
  }
  throw core::InputError(std::move(diagnostic));
}

}  // namespace

std::filesystem::path run_command(const RunCommandOptions& options, const checks::Registries& registries) {
  const scenario::ScenarioFormat format(registries);
  scenario::LoadOptions load = checks::confined_load(options.confine);
  load.study_scenario = options.study_scenario;
  scenario::ScenarioDocument document =
      checks::read_document_and_data(format, options.scenario_file, options.point, load);
  if (options.origin_file) {
    for (scenario::Scenario& point : document.points) point.source = *options.origin_file;
  }
  const scenario::Scenario& first = document.points.front();
  const std::filesystem::path folder =
      options.output_folder.value_or(first.output_folder.value_or(std::filesystem::path("out") / first.name));
  core::SourcePosition named_at = first.output_folder_at;
  if (named_at.file.empty()) named_at.file = options.scenario_file.string();
  checks::check_confined_output(folder, options.output_folder.has_value(), named_at, options.confine);
  core::check_result_folder(folder);
  if (options.slurm || options.sweep_only) check_sweep_options(options, document);
  // With --point the document holds that point alone, which writes exactly where it is told: the sweep runner
  // passes <folder>/<point> itself.
  if (document.points.size() == 1 && !options.slurm) {
    run_one(options, std::move(document.points.front()), folder, format);
    return folder;
  }
  checks::check_every_point(document, registries);
  run_sweep(options, format, document, folder);
  return folder;
}

}  // namespace dtsim::app
