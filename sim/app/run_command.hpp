#pragma once

#include "sim/checks/registries.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>
#include <optional>
#include <string>

namespace dtsim::app {

struct RunCommandOptions {
  std::filesystem::path scenario_file;
  std::optional<std::filesystem::path> output_folder;  ///< default: out/<scenario name>
  std::optional<std::uint64_t> seed;                   ///< overrides the scenario's seed
  std::optional<std::string> point;                    ///< run only this sweep point
  bool quiet = false;                                  ///< no progress line, no summary table
  bool report = false;                                 ///< write report.html (as outputs.report: true)
  bool force = false;                                  ///< a sweep runs every point again, done or not
  int jobs = 0;                                        ///< a sweep's points at once; 0: the cores
  bool summary_table = true;                           ///< a sweep ends with its results table
  bool slurm = false;                                  ///< a sweep's points as a Slurm job array
  std::vector<std::string> sbatch_options;             ///< with `slurm`: passed on to sbatch
  bool sweep_only = false;                             ///< `dtsim sweep`: refuse a scenario without a sweep
  bool every_rank = false;                             ///< simulate every worker even where they behave alike
  bool values_by_message = false;                      ///< every collective's values sent by message
  int threads = 0;                                     ///< for the workers' real math; 0: the cores
  std::vector<std::filesystem::path> plugins;          ///< loaded into the registries: a sweep's points load them too
  /// --confine DIR (canonical): includes, data, traces and plug-ins outside it are refused; a sweep's points too.
  std::optional<std::filesystem::path> confine;
  std::filesystem::path executable;                    ///< the dtsim that runs a sweep's points; empty: this process's
  /// A study's sweep (`dtsim scale`, `dtsim plan`): the scenario it generated, whose place is scenario_file. The
  /// points read it from the sweep's staging folder, and it takes its place as their results take theirs. Empty:
  /// scenario_file is read where it is.
  std::string generated_scenario;
  /// A study's point: the user's scenario, which the study's generated scenario includes, read outside --confine as
  /// the file named on the study's command line (LoadOptions::study_scenario).
  std::optional<std::filesystem::path> study_scenario;
  /// A study's point: the name its generated scenario has once the study is done, which the results give as their
  /// origin (summary.json's origin.file) in place of the staging folder's copy the point reads.
  std::optional<std::filesystem::path> origin_file;
  /// Where progress goes when a host draws it (Python): each update as one line of text ("iteration 40/100
  /// (40%), simulated 0.012 s"; a sweep's "3/8 points done, 2 running; last: workers=4"), even when quiet.
  /// Unset: the terminal's progress line, unless quiet.
  std::function<void(const std::string&)> progress_to;
};

/// `dtsim run`: reads, resolves and simulates the scenario, writes its result files, prints the summary.
/// A sweep runs every point (or only `point`) into <folder>/<point>/. Throws core::InputError for bad
/// input; nothing is written unless the simulation completes. Returns the folder written.
std::filesystem::path run_command(const RunCommandOptions& options, const checks::Registries& registries);

}  // namespace dtsim::app
