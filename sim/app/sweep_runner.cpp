#include "sim/app/sweep_runner.hpp"

#include "sim/app/cluster_sweep.hpp"

#include "analysis/report_html.hpp"
#include "analysis/run_comparison.hpp"
#include "analysis/run_summary.hpp"
#include "sim/app/interrupts.hpp"
#include "sim/app/slurm_sweep.hpp"
#include "sim/core/csv.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/result_folder.hpp"
#include "sim/core/rng.hpp"
#include "sim/scenario/resolved_json.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace dtsim::app {
namespace {

/// What makes a sweep's results: the resolved document (every point's values follow from it) and the seed.
/// A folder built for another manifest is never mixed with this one.
nlohmann::ordered_json sweep_manifest(const RunCommandOptions& options, const scenario::SchemaNode& schema,
                                      const scenario::ScenarioDocument& document) {
  const std::uint64_t seed = options.seed.value_or(document.points.front().seed);
  const std::string resolved = scenario::resolved_json(schema, document.resolved).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const auto& point : document.points) points.push_back(point.sweep_point);
  return {{"scenario", options.scenario_file.filename().string()},
          {"fingerprint", fmt::format("{:016x}", core::stable_hash(resolved + "\nseed " + std::to_string(seed)))},
          {"seed", seed},
          {"points", points}};
}

/// The axes' dotted paths, in the order point labels name them.
std::vector<std::string> axis_paths(const scenario::ScenarioDocument& document) {
  std::vector<std::string> paths;
  const core::ConfigNode* sweep = document.resolved.find("sweep");
  const core::ConfigNode* axes = sweep == nullptr ? nullptr : sweep->find("axes");
  if (axes != nullptr) {
    for (const core::ConfigEntry& entry : axes->entries) paths.push_back(entry.key);
  }
  return paths;
}

/// A point's results are complete when its folder holds a summary.json that reads as one: results are
/// written all together or not at all, so the rest is there too.
bool done(const std::filesystem::path& point_folder, const sync::SyncRegistry& strategies) {
  try {
    static_cast<void>(analysis::read_run_summary(point_folder, strategies));
    return true;
  } catch (const core::InputError&) {
    return false;
  }
}

/// Progress on a terminal: one line, redrawn as points finish; or, for a host that draws it, one line of text
/// at each point (RunCommandOptions::progress_to).
class SweepProgress {
 public:
  SweepProgress(std::size_t total, bool quiet, std::function<void(const std::string&)> to)
      : total_(total), quiet_(quiet), terminal_(::isatty(STDOUT_FILENO) != 0), to_(std::move(to)) {}

  void skipped(std::size_t index, const std::string& point) {
    ++finished_;
    if (to_) to_(fmt::format("{}/{} points done; last: {} (done before)", finished_, total_, point));
    if (quiet_) return;
    fmt::print("[{}/{}] {} (done before)\n", index + 1, total_, point);
  }
  /// `others` says what the points not done yet are doing ("3 running").
  void finished(std::size_t index, const std::string& point, const std::string& others) {
    ++finished_;
    if (to_) to_(fmt::format("{}/{} points done, {}; last: {}", finished_, total_, others, point));
    if (quiet_) return;
    if (terminal_) {
      fmt::print("\r\033[K{}/{} points done, {}; last: {}", finished_, total_, others, point);
      if (finished_ == total_) fmt::print("\n");
    } else {
      fmt::print("[{}/{}] {}\n", index + 1, total_, point);
    }
    std::fflush(stdout);
  }
  void end_line() {
    if (!quiet_ && terminal_ && finished_ != total_) fmt::print("\n");
  }

 private:
  std::size_t total_;
  bool quiet_;
  bool terminal_;
  std::function<void(const std::string&)> to_;
  std::size_t finished_ = 0;
};

std::string sweep_csv(const scenario::ScenarioDocument& document, const std::filesystem::path& folder,
                      const sync::SyncRegistry& strategies) {
  const std::vector<std::string> axes = axis_paths(document);
  std::vector<analysis::RunSummary> summaries;
  bool projected = false;  // budgets' runs: the whole run's days and goodput too
  for (const auto& point : document.points) {
    summaries.push_back(analysis::read_run_summary(folder / point.sweep_point, strategies));
    projected = projected || summaries.back().projected_days.has_value();
  }
  std::string csv = "point";
  for (const std::string& axis : axes) csv += "," + axis;
  csv += ",iterations,simulated_s,bytes_sent,final_val_loss,final_val_accuracy,time_to_target_s,energy_j,"
         "energy_waiting_share," + std::string(analysis::kTimingColumns);
  csv += projected ? ",projected_days,goodput_expected,goodput_drawn\n" : "\n";
  const auto cell = [](const std::optional<double>& value) { return value ? fmt::format("{:.9g}", *value) : std::string(); };
  for (std::size_t p = 0; p < document.points.size(); ++p) {
    const analysis::RunSummary& summary = summaries[p];
    csv += fmt::format("\"{}\"", document.points[p].sweep_point);
    const std::vector<std::string>& values = document.points[p].sweep_values;
    for (std::size_t a = 0; a < axes.size(); ++a) csv += "," + (a < values.size() ? core::csv_field(values[a]) : "");
    csv += fmt::format(",{},{:.9g},{:.0f},{},{},{},{},{},{}", summary.iterations, summary.simulated_s, summary.bytes_sent,
                       cell(summary.final_val_loss), cell(summary.final_val_accuracy), cell(summary.time_to_target_s),
                       cell(summary.energy_j), cell(summary.energy_waiting_share), analysis::timing_cells(summary));
    if (projected) {
      csv += fmt::format(",{},{},{}", cell(summary.projected_days), cell(summary.goodput_expected), cell(summary.goodput_drawn));
    }
    csv += "\n";
  }
  return csv;
}

/// Runs the points' commands as child processes of this one, `options.jobs` at once; throws on the first
/// that fails, once those running have ended.
void run_points_here(const RunCommandOptions& options, const scenario::ScenarioDocument& document,
                     const std::filesystem::path& folder, const std::vector<std::vector<std::string>>& commands,
                     const std::vector<std::size_t>& command_point, SweepProgress& progress) {
  const int jobs = options.jobs > 0 ? options.jobs : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  std::optional<core::Diagnostic> failed;
  std::size_t ended = 0;
  std::fflush(stdout);
  run_child_processes(commands, jobs, [&](std::size_t command, int status) {
    const std::size_t i = command_point[command];
    const std::string& point = document.points[i].sweep_point;
    ++ended;
    // What runs next: the pool refills up to `jobs` from the points left.
    const std::size_t running = std::min(static_cast<std::size_t>(jobs), commands.size() - ended);
    if (status != 0) {
      core::Diagnostic diagnostic;
      diagnostic.where.file = options.scenario_file.string();
      diagnostic.key = "sweep";
      diagnostic.message = fmt::format("point {} failed (exit status {}); {} is unchanged", point, status, folder.string());
      diagnostic.hint = "the points done so far are kept: the same sweep run again goes on from them";
      if (!failed) failed = std::move(diagnostic);
      return false;
    }
    progress.finished(i, point, fmt::format("{} running", running));
    return true;
  });
  progress.end_line();
  if (failed) throw core::InputError(std::move(*failed));
}

/// The last `lines` lines of a log file, indented, or nothing when it cannot be read.
std::string log_tail(const std::filesystem::path& log, std::size_t lines) {
  std::string unreadable;
  const std::string text = core::read_input_file(log, core::kScenarioFileLimit, unreadable).value_or("");
  std::vector<std::string> all;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    all.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::string out;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += "\n    " + all[i];
  return out;
}

/// Runs the points' commands as one Slurm job array; throws, naming the points and their logs, when some
/// did not finish. Their logs stay in the staging folder's slurm/ until the sweep is complete.
void run_points_on_slurm(const RunCommandOptions& options, const scenario::ScenarioDocument& document,
                         const sync::SyncRegistry& strategies, const std::filesystem::path& staging, const std::vector<std::vector<std::string>>& commands,
                         const std::vector<std::size_t>& command_point, SweepProgress& progress) {
  std::vector<SlurmTask> tasks;
  for (std::size_t c = 0; c < commands.size(); ++c) {
    tasks.push_back({document.points[command_point[c]].sweep_point, commands[c]});
  }
  const SlurmSubmission submission{std::filesystem::absolute(staging / "slurm"), "dtsim-" + document.points.front().name,
                                   options.sbatch_options, options.quiet};
  std::size_t finished = 0;
  std::fflush(stdout);
  const std::vector<std::size_t> unfinished = run_on_slurm(
      tasks, submission, [&](std::size_t task) { return done(staging / tasks[task].point, strategies) || cluster_point_done(staging / tasks[task].point); },
      [&](std::size_t task) {
        ++finished;
        progress.finished(command_point[task], tasks[task].point, fmt::format("{} in Slurm's queue", tasks.size() - finished));
      });
  progress.end_line();
  if (!unfinished.empty()) {
    std::string names;
    for (const std::size_t task : unfinished) names += (names.empty() ? "" : ", ") + tasks[task].point;
    const std::filesystem::path first_log = submission.folder / (tasks[unfinished.front()].point + ".log");
    core::Diagnostic diagnostic;
    diagnostic.where.file = options.scenario_file.string();
    diagnostic.key = "sweep";
    const std::string tail = log_tail(first_log, 5);
    diagnostic.message =
        fmt::format("{} of {} points did not finish under Slurm: {}; {}", unfinished.size(), tasks.size(), names,
                    tail.empty() ? fmt::format("{}'s task wrote no log (it never started, or Slurm cancelled it; "
                                               "Slurm's own words are in {}/slurm-*.out)",
                                               tasks[unfinished.front()].point, submission.folder.string())
                                 : fmt::format("{} ends with:{}", first_log.string(), tail));
    diagnostic.hint = fmt::format("the points done so far are kept, and the logs in {}/: the same sweep run again "
                                  "submits only the others",
                                  submission.folder.string());
    throw core::InputError(std::move(diagnostic));
  }
}

/// The command that runs one point of the sweep into `point_folder`, with the sweep's own options.
std::vector<std::string> point_command(const RunCommandOptions& options, const std::string& self, const std::string& point,
                                       const std::filesystem::path& point_folder) {
  // Slurm's tasks start elsewhere, in a folder of Slurm's choosing: they get absolute paths.
  const auto where = [&](const std::filesystem::path& path) {
    return (options.slurm ? std::filesystem::absolute(path) : path).string();
  };
  std::vector<std::string> arguments{self, "run", where(options.scenario_file), "--point", point,
                                     "-o", where(point_folder), "-q"};
  if (options.seed) {
    arguments.emplace_back("--seed");
    arguments.push_back(std::to_string(*options.seed));
  }
  if (options.report) arguments.emplace_back("--report");
  if (options.every_rank) arguments.emplace_back("--every-rank");
  if (options.values_by_message) arguments.emplace_back("--values-by-message");
  if (options.threads > 0) {
    arguments.emplace_back("--threads");
    arguments.push_back(std::to_string(options.threads));
  }
  if (options.confine) {
    arguments.emplace_back("--confine");
    arguments.push_back(options.confine->string());
  }
  if (options.study_scenario) {
    arguments.emplace_back("--study-scenario");
    arguments.push_back(where(*options.study_scenario));
  }
  if (options.origin_file) {
    arguments.emplace_back("--origin");
    arguments.push_back(std::filesystem::absolute(*options.origin_file).string());
  }
  for (const auto& plugin : options.plugins) {
    arguments.emplace_back("--plugin");
    arguments.push_back(std::filesystem::absolute(plugin).string());
  }
  return arguments;
}

/// Empties a staging folder that holds no run of this sweep (forced afresh, another manifest, or the previous
/// results a commit stopped halfway left there), so that none of it passes for this sweep's points, and writes the
/// sweep's manifest there.
void start_afresh(const std::filesystem::path& staging, const std::string& manifest_text) {
  for (const auto& entry : std::filesystem::directory_iterator(staging)) std::filesystem::remove_all(entry.path());
  core::write_file_atomically(staging / "sweep.json", manifest_text);
}

/// Writes the tables (and report) of a sweep whose points are all done into its staging folder, puts it in
/// `folder`'s place with `commit`, and prints its results table where asked.
void finish_sweep(const RunCommandOptions& options, const scenario::ScenarioDocument& document,
                  const sync::SyncRegistry& strategies, const core::StagedFolder& staged,
                  const std::filesystem::path& folder, const std::function<void()>& commit) {
  const std::size_t count = document.points.size();
  // A scenario of several jobs: each point is a cluster run, with the cluster's summary.
  if (!document.points.front().jobs.empty()) {
    staged.write_file("sweep.csv", cluster_sweep_csv(document, staged.path(), false));
    commit();
    if (!options.quiet && options.summary_table) {
      fmt::print("\n{}{} cluster runs; one folder per point, sweep.csv in {}/\n",
                 cluster_sweep_csv(document, folder, true), count, folder.string());
    }
    return;
  }
  staged.write_file("sweep.csv", sweep_csv(document, staged.path(), strategies));
  std::vector<analysis::RunSummary> summaries;
  for (const auto& point : document.points) {
    summaries.push_back(analysis::read_run_summary(staged.path() / point.sweep_point, strategies));
  }
  const bool report = options.report || document.points.front().outputs.report;
  if (report) {
    staged.write_file("report.html", analysis::report_html(analysis::read_report_runs({staged.path()}, strategies)));
  }
  commit();
  if (!options.quiet && options.summary_table) {
    fmt::print("\n{}", analysis::comparison_table(summaries));
    fmt::print("{} runs; one folder per point, sweep.csv{} in {}/\n", count, report ? " and report.html" : "",
               folder.string());
  }
}

}  // namespace

void check_study_folder(const std::filesystem::path& folder, const std::string& study) {
  namespace fs = std::filesystem;
  const auto refuse = [](const fs::path& where, std::string message, std::string hint) {
    throw core::InputError(core::Diagnostic{{where.string()}, "", std::move(message), std::move(hint)});
  };
  std::error_code ignored;
  // A study makes its folders through the path as given, and no folder can be made where a link points to nothing:
  // that is said here, before anything is simulated, not by the system halfway through.
  const fs::path named = folder.has_filename() ? folder : folder.parent_path();
  for (fs::path at = named; at.has_relative_path(); at = at.parent_path()) {
    if (!fs::is_symlink(fs::symlink_status(at, ignored)) || fs::exists(at, ignored)) continue;
    const std::string target = fs::read_symlink(at, ignored).string();
    const std::string message =
        at == named
            ? fmt::format("the output folder of {} is a symbolic link to '{}', which does not exist", study, target)
            : fmt::format("the output folder of {}, {}, lies under this symbolic link to '{}', which does not exist",
                          study, folder.string(), target);
    refuse(at, message, "create the folder the link points to, or give another folder with -o");
  }
  if (fs::exists(folder, ignored) && !fs::is_directory(folder, ignored)) {
    refuse(folder, fmt::format("the output folder of {} is not a folder", study), "give a folder with -o");
  }
}

void run_sweep(const RunCommandOptions& options, const scenario::ScenarioFormat& format,
               const scenario::ScenarioDocument& document, const std::filesystem::path& folder) {
  const sync::SyncRegistry& strategies = format.registries().strategies;
  // A host program other than dtsim (the Python module) names the dtsim that runs the points.
  const std::string self = options.executable.empty() ? std::filesystem::read_symlink("/proc/self/exe").string()
                                                      : options.executable.string();
  const nlohmann::ordered_json manifest = sweep_manifest(options, format.schema(), document);
  const std::string manifest_text = manifest.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  // The sweep is built beside its folder and takes its place when every point is done. An interrupted sweep
  // leaves its staging folder, named by the manifest's fingerprint, and the same sweep run again goes on
  // from the points it finished; any other sweep starts afresh. A finished sweep run again takes its
  // points from the folder itself.
  const std::string fingerprint = manifest["fingerprint"].get<std::string>();
  core::StagedFolder staged(folder, "sweep-" + fingerprint, /*keep_on_failure=*/true);
  std::string unreadable;
  const auto same_sweep = [&](const std::filesystem::path& where) {
    return core::read_input_file(where / "sweep.json", core::kScenarioFileLimit, unreadable) == manifest_text;
  };
  const bool resuming = !options.force && same_sweep(staged.path());
  const bool finished_before = !options.force && !resuming && same_sweep(folder);
  if (!resuming) start_afresh(staged.path(), manifest_text);
  // A study's generated scenario is staged with the points that read it, and takes its place beside the sweep's
  // folder when they take theirs: an interrupted study leaves the previous scenario beside the previous results.
  // Their results name it where it will be, and a point that fails is said to fail on it where it is.
  RunCommandOptions point_options = options;
  const std::filesystem::path staged_scenario = staged.path() / options.scenario_file.filename();
  if (!options.generated_scenario.empty()) {
    point_options.scenario_file = staged_scenario;
    point_options.origin_file = options.scenario_file;
    core::write_file_atomically(staged_scenario, options.generated_scenario);
  }
  const auto commit = [&] {
    staged.commit();
    if (options.generated_scenario.empty()) return;
    std::error_code error;
    std::filesystem::rename(staged.target() / staged_scenario.filename(), options.scenario_file, error);
    if (error) core::throw_write_error(options.scenario_file, error.message());
  };

  const std::size_t count = document.points.size();
  // A scenario of several jobs: each point is a cluster run, with the cluster's summary.
  const bool clusters = !document.points.front().jobs.empty();
  const auto done = [&](const std::filesystem::path& point_folder) {
    return clusters ? cluster_point_done(point_folder) : app::done(point_folder, strategies);
  };
  SweepProgress progress(count, options.quiet, options.progress_to);
  std::vector<std::vector<std::string>> commands;
  std::vector<std::size_t> command_point;
  for (std::size_t i = 0; i < count; ++i) {
    const auto& point = document.points[i];
    const std::filesystem::path point_folder = staged.path() / point.sweep_point;
    if (finished_before && done(folder / point.sweep_point) && !done(point_folder)) {
      // Hard links: the finished sweep stays as it is until the new one takes its place.
      std::filesystem::remove_all(point_folder);
      std::filesystem::copy(folder / point.sweep_point, point_folder,
                            std::filesystem::copy_options::recursive | std::filesystem::copy_options::create_hard_links);
    }
    if ((resuming || finished_before) && done(point_folder)) {
      progress.skipped(i, point.sweep_point);
      continue;
    }
    std::vector<std::string> arguments = point_command(point_options, self, point.sweep_point, point_folder);
    commands.push_back(std::move(arguments));
    command_point.push_back(i);
  }
  if (options.slurm) {
    run_points_on_slurm(point_options, document, strategies, staged.path(), commands, command_point, progress);
  } else {
    run_points_here(point_options, document, folder, commands, command_point, progress);
  }
  // The Slurm tasks' logs of a sweep that failed before; a complete sweep has the layout of a local one.
  std::filesystem::remove_all(staged.path() / "slurm");
  finish_sweep(options, document, strategies, staged, folder, commit);
}

}  // namespace dtsim::app
