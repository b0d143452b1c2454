#include "analysis/run_comparison.hpp"

#include "sim/core/csv.hpp"
#include "sim/core/units.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dtsim::analysis {
namespace {

std::string optional_cell(const std::optional<double>& value, const char* format) {
  return value ? fmt::format(fmt::runtime(format), *value) : std::string();
}

/// The final validation loss; "diverged@k" for a run whose loss stopped being a number by iteration k.
std::string final_loss_cell(const RunSummary& run) {
  if (run.diverged_at_iteration) return fmt::format("diverged@{}", *run.diverged_at_iteration);
  return run.final_val_loss ? fmt::format("{:.4f}", *run.final_val_loss) : "-";
}

}  // namespace

std::string comparison_table(std::span<const RunSummary> runs) {
  std::size_t width = 3;
  std::size_t straggler_width = 10;
  for (const RunSummary& run : runs) {
    width = std::max(width, run.run.size());
    straggler_width = std::max(straggler_width, run.stragglers.size());
  }
  std::string target_header = "to target s";
  for (const RunSummary& run : runs) {
    if (run.target_loss) target_header = fmt::format("to loss {:g} s", *run.target_loss);
  }
  std::string out = fmt::format("{:<{}}  {:<15} {:<22} {:<{}} {:>12} {:>14} {:>10} {:>10} {:>8} {:>12}\n", "run", width,
                                "strategy", "architecture", "stragglers", straggler_width, "simulated s", target_header, "final loss",
                                "staleness", "waiting", "sent");
  for (const RunSummary& run : runs) {
    out += fmt::format("{:<{}}  {:<15} {:<22} {:<{}} {:>12.6f} {:>14} {:>10} {:>10} {:>7.1f}% {:>12}\n", run.run,
                       width, run.strategy, run.architecture, run.stragglers, straggler_width, run.simulated_s,
                       run.time_to_target_s ? fmt::format("{:.6f}", *run.time_to_target_s)
                                            : (run.target_loss ? "not reached" : "-"),
                       final_loss_cell(run), run.mean_staleness ? fmt::format("{:.2f}", *run.mean_staleness) : "-",
                       100.0 * run.waiting_fraction, core::format_size(core::Bytes(run.bytes_sent)));
  }
  return out;
}

std::string comparison_csv(std::span<const RunSummary> runs) {
  std::string out =
      "run,strategy,architecture,stragglers,simulated_s,time_to_target_s,final_val_loss,mean_staleness,"
      "waiting_fraction,bytes_sent,diverged_at_iteration\n";
  for (const RunSummary& run : runs) {
    out += fmt::format("{},{},{},{},{:.9g},{},{},{},{:.6f},{:.0f},{}\n", core::csv_field(run.run),
                       core::csv_field(run.strategy), core::csv_field(run.architecture),
                       core::csv_field(run.stragglers), run.simulated_s, optional_cell(run.time_to_target_s, "{:.9g}"),
                       optional_cell(run.final_val_loss, "{:.9g}"), optional_cell(run.mean_staleness, "{:.9g}"), run.waiting_fraction,
                       run.bytes_sent, run.diverged_at_iteration ? std::to_string(*run.diverged_at_iteration) : "");
  }
  return out;
}

}  // namespace dtsim::analysis
