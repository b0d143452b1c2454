#pragma once
// Runs a sweep's points on a Slurm cluster: one job array task per point (sbatch --array), each task one
// `dtsim run --point`, every task writing its results where a local sweep's child would. The staging folder,
// this dtsim and the scenario must be on a file system the cluster's nodes share.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace dtsim::app {

/// One point to run: its command line (the first argument an absolute path) and its name.
struct SlurmTask {
  std::string point;
  std::vector<std::string> command;
};

struct SlurmSubmission {
  std::filesystem::path folder;        ///< where the batch script and the task logs go
  std::string job_name;                ///< sbatch --job-name, unless `sbatch_options` names one
  std::vector<std::string> sbatch_options;  ///< passed to sbatch before the script
  bool quiet = false;
};

/// Submits `tasks` as one job array and waits for it to leave the queue, calling `finished(i)` once each
/// task i's results are there (`done(i)` tells, polled while the job runs). A SIGINT or SIGTERM cancels the
/// job (scancel) and throws Interrupted. Returns the tasks that never finished, in order. Throws
/// core::InputError when sbatch is missing or refuses the job.
std::vector<std::size_t> run_on_slurm(const std::vector<SlurmTask>& tasks, const SlurmSubmission& submission,
                                      const std::function<bool(std::size_t)>& done,
                                      const std::function<void(std::size_t)>& finished);

/// Whether `program` is an executable file in one of the PATH's folders.
bool on_path(const std::string& program);

/// `text` split at runs of spaces (sbatch options as one string: "--partition=debug --time=10").
std::vector<std::string> split_options(const std::string& text);

/// `value` as one word for sh: single-quoted, with its own single quotes escaped.
std::string shell_quoted(const std::string& value);

}  // namespace dtsim::app
