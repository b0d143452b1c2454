#pragma once
// `dtsim compare`: runs side by side, as read back from their summary.json files.

#include "analysis/run_summary.hpp"

#include <span>
#include <string>

namespace dtsim::analysis {

/// An aligned table, one row per run, in the order given.
std::string comparison_table(std::span<const RunSummary> runs);

/// The same as CSV: run,strategy,architecture,stragglers,simulated_s,time_to_target_s,final_val_loss,
/// mean_staleness,waiting_fraction,bytes_sent (empty cells where a value is absent).
std::string comparison_csv(std::span<const RunSummary> runs);

}  // namespace dtsim::analysis
