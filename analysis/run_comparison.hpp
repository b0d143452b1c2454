#pragma once
// `dtsim compare`: runs side by side, read back from the summary.json files they wrote.

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dtsim::analysis {

/// What one run is compared on.
struct RunComparison {
  std::string run;           ///< the scenario's name (and sweep point)
  std::string strategy;      ///< training.sync.strategy
  std::string architecture;  ///< parameter_server, the allreduce algorithm, hybrid (algorithm), or peer to peer
  std::string stragglers;    ///< "w3x4" per slowed worker, "-" for none
  double simulated_s = 0.0;
  std::optional<double> time_to_target_s;  ///< absent without outputs.target_loss or when not reached
  std::optional<double> target_loss;
  std::optional<double> final_val_loss;  ///< absent for timing-only runs (a profile has no loss)
  std::optional<double> mean_staleness;  ///< absent where no staleness is recorded (local_sgd, gossip)
  double waiting_fraction = 0.0;         ///< the workers' wait_s over (workers x simulated_s)
  double bytes_sent = 0.0;
};

/// The run folders `folder` stands for: itself when it holds a summary.json, else, for a sweep's folder
/// (a sweep.csv and no summary.json), its points' folders in sweep.csv's order.
std::vector<std::filesystem::path> run_folders(const std::filesystem::path& folder);

/// Reads `folder`/summary.json; throws core::InputError naming the folder when it is missing or is not
/// a summary dtsim wrote.
RunComparison read_run_comparison(const std::filesystem::path& folder);

/// An aligned table, one row per run, in the order given.
std::string comparison_table(std::span<const RunComparison> runs);

/// The same as CSV: run,strategy,architecture,stragglers,simulated_s,time_to_target_s,final_val_loss,
/// mean_staleness,waiting_fraction,bytes_sent (empty cells where a value is absent).
std::string comparison_csv(std::span<const RunComparison> runs);

}  // namespace dtsim::analysis
