#pragma once
// `dtsim compare`: runs side by side, as read back from their summary.json files.

#include "analysis/run_summary.hpp"

#include <span>
#include <string>

namespace dtsim::analysis {

/// The columns of a timing-only run's throughput, memory, pipeline idle time and split, which compare's CSV and
/// sweep.csv end with (empty for runs trained for real).
inline constexpr const char* kTimingColumns =
    "samples_per_s,tokens_per_s,model_flops_utilization,peak_memory_bytes,idle_fraction,layout";

/// An aligned table, one row per run, in the order given. Timing-only runs together get their own columns:
/// the iteration, tokens/s (samples/s for models without sequences), MFU, peak memory per device, the split
/// and the pipeline's idle time.
std::string comparison_table(std::span<const RunSummary> runs);

/// A run's cells of kTimingColumns.
std::string timing_cells(const RunSummary& run);

/// The same as CSV: run,strategy,architecture,stragglers,simulated_s,time_to_target_s,final_val_loss,
/// mean_staleness,waiting_fraction,bytes_sent,diverged_at_iteration, then kTimingColumns (empty cells where a
/// value is absent).
std::string comparison_csv(std::span<const RunSummary> runs);

}  // namespace dtsim::analysis
