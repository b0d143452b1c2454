#pragma once
// Runs the points of a sweep. SimGrid allows one engine per process, so every point is simulated by a
// child `dtsim run --point LABEL`, several at once (`-j`).

#include "sim/app/run_command.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include <filesystem>
#include <string>

namespace dtsim::app {

/// Runs every point into `folder`/<label>/ and writes `folder`/sweep.csv (one row per point: its axes'
/// values and final figures), and report.html when asked; a generated scenario (options.generated_scenario)
/// is written at options.scenario_file as the results take their place, never before. A point already done (its
/// complete results in the sweep's staging folder, or in `folder` from the same sweep) is not run again unless
/// `options.force`.
/// Throws core::InputError naming the point when one fails, once the points running have ended.
void run_sweep(const RunCommandOptions& options, const scenario::ScenarioFormat& format,
               const scenario::ScenarioDocument& document, const std::filesystem::path& folder);

/// Refuses, before anything is simulated, an output folder that `study` ("a plan", "a scaling study") cannot make
/// and fill: one that is, or lies under, a symbolic link to nothing, or one that exists and is not a folder. Throws
/// core::InputError naming the path, with a hint.
void check_study_folder(const std::filesystem::path& folder, const std::string& study);

/// The options of a sweep that a study (`dtsim scale`, `dtsim plan`) generates, `scenario_text` to be written at
/// `scenario_file` with the sweep's results, and runs as part of it: the study's seed, jobs, plug-ins, confinement
/// (the study's scenario, which the generated one includes, read outside it) and executable, no results table of its
/// own, and progress lines led by `label`.
template <typename StudyOptions>
RunCommandOptions study_sweep_options(const StudyOptions& options, const std::filesystem::path& scenario_file,
                                      const std::string& scenario_text, const std::string& label) {
  RunCommandOptions run;
  run.scenario_file = scenario_file;
  run.generated_scenario = scenario_text;
  run.seed = options.seed;
  run.quiet = options.quiet;
  run.force = options.force;
  run.jobs = options.jobs;
  run.summary_table = false;
  run.plugins = options.plugins;
  run.confine = options.confine;
  run.study_scenario = options.scenario_file;
  run.executable = options.executable;
  if (options.progress_to) {
    run.progress_to = [to = options.progress_to, label](const std::string& line) { to(label + ": " + line); };
  }
  return run;
}

}  // namespace dtsim::app
