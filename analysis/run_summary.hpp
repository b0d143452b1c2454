#pragma once
// A finished run read back from the summary.json it wrote: the one reader that sweeps (sweep.csv) and
// `dtsim compare` share.

#include "sim/sync/sync_strategy.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::analysis {

struct RunSummary {
  std::string run;           ///< the scenario's name, and its sweep point in brackets
  std::string sweep_point;   ///< "" outside a sweep
  std::string strategy;      ///< training.sync.strategy
  std::string architecture;  ///< parameter_server, "<algorithm> allreduce", hybrid (algorithm), or peer to peer
  std::string stragglers;    ///< "w3x4" per fixed slowdown rule ("all" for every worker), the distribution or
                             ///< "trace" for the others; "-" for none
  std::int64_t iterations = 0;
  double simulated_s = 0.0;
  double bytes_sent = 0.0;
  std::optional<double> final_val_loss;      ///< absent for timing-only runs (a profile has no loss)
  std::optional<double> final_val_accuracy;  ///< likewise
  std::optional<double> target_loss;         ///< outputs.target_loss
  std::optional<double> time_to_target_s;    ///< absent without a target or when not reached
  std::optional<double> mean_staleness;      ///< absent where no staleness is recorded (allreduce)
  double waiting_fraction = 0.0;             ///< the workers' wait_s over (workers x simulated_s)
  std::optional<double> energy_j;            ///< energy runs
  std::optional<double> energy_waiting_share;
  std::optional<std::int64_t> diverged_at_iteration;  ///< the first evaluation whose loss was not a number
  /// A budget's whole run (result.projection): its days; with failures, its goodput expected and drawn.
  std::optional<double> projected_days;
  std::optional<double> goodput_expected;
  std::optional<double> goodput_drawn;
  /// Timing-only runs (layer tables), what a plan compares: throughput, model FLOPs utilization (a fraction),
  /// the largest memory a device holds, and a pipeline's idle time over its busiest stage's compute.
  std::optional<double> samples_per_s;
  std::optional<double> tokens_per_s;
  std::optional<double> model_flops_utilization;
  std::optional<double> peak_memory_bytes;
  std::optional<double> idle_fraction;
  /// The split, "t8 p4 d32" (with e and c for expert and context degrees above 1); "" for data parallelism
  /// alone.
  std::string layout;
  /// Worker 0's communication per iteration by what it carried ("tensor", "pipeline", "data", "zero", "expert",
  /// "context"), where the run reports it.
  std::map<std::string, double> communication_by_kind_s;
  std::optional<double> cost;  ///< the run's cost (energy.price_per_kwh, price_per_device_hour), in `currency`
  std::string currency;
};

/// A run's split from its result.parallelism: "t8 p4 d32", with the expert and context degrees where above 1; ""
/// without model parallelism.
std::string describe_layout(const nlohmann::json& parallelism);

/// The run folders `folder` stands for: itself when it holds a summary.json; for a sweep's folder (a sweep.csv
/// and no summary.json), its points' folders in sweep.csv's order; for a scaling study's (scaling.csv), its
/// weak sweep's points, then its strong sweep's.
std::vector<std::filesystem::path> run_folders(const std::filesystem::path& folder);

/// Whether `summary` is a cluster run's (jobs sharing the cluster: its makespan and jobs), which holds no run of
/// its own: each job's run is in the folder's jobs/<job>/.
bool is_cluster_summary(const nlohmann::json& summary);

/// Throws core::InputError naming `file`, a cluster run's summary given where one run's is read, with the
/// folders that hold runs: its jobs'.
[[noreturn]] void refuse_cluster_summary(const std::filesystem::path& file);

/// Throws core::InputError naming `file` unless `summary` is an object dtsim wrote (it holds dtsim_version).
void refuse_foreign_summary(const nlohmann::json& summary, const std::filesystem::path& file);

/// Reads `folder`/summary.json, describing its exchange by `strategies` (a plug-in strategy's own words); throws
/// core::InputError naming the file when it is missing or is not a summary this dtsim writes.
RunSummary read_run_summary(const std::filesystem::path& folder, const sync::SyncRegistry& strategies);

}  // namespace dtsim::analysis
