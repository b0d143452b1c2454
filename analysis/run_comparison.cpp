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

/// Timing-only runs side by side, as a plan compares them: the iteration, throughput, utilization, memory,
/// split and pipeline idle time.
std::string timing_table(std::span<const RunSummary> runs) {
  std::size_t width = 3;
  std::size_t layout_width = 6;
  bool tokens = true;
  for (const RunSummary& run : runs) {
    width = std::max(width, run.run.size());
    layout_width = std::max(layout_width, run.layout.size());
    tokens = tokens && run.tokens_per_s.has_value();
  }
  std::string out = fmt::format("{:<{}}  {:>12} {:>14} {:>6} {:>12}  {:<{}} {:>6} {:>12}\n", "run", width, "iteration s",
                                tokens ? "tokens/s" : "samples/s", "MFU", "peak memory", "layout", layout_width, "idle",
                                "sent");
  for (const RunSummary& run : runs) {
    const double iteration_s = run.iterations > 0 ? run.simulated_s / static_cast<double>(run.iterations) : 0.0;
    const double rate = tokens ? *run.tokens_per_s : *run.samples_per_s;
    out += fmt::format("{:<{}}  {:>12.6f} {:>14.6g} {:>5.1f}% {:>12}  {:<{}} {:>6} {:>12}\n", run.run, width, iteration_s,
                       rate, 100.0 * run.model_flops_utilization.value_or(0.0),
                       run.peak_memory_bytes ? core::format_size(core::Bytes(*run.peak_memory_bytes)) : "-",
                       run.layout.empty() ? "data" : run.layout, layout_width,
                       run.idle_fraction ? fmt::format("{:.1f}%", 100.0 * *run.idle_fraction) : "-",
                       core::format_size(core::Bytes(run.bytes_sent)));
  }
  return out;
}

}  // namespace

std::string comparison_table(std::span<const RunSummary> runs) {
  const bool timing = !runs.empty() && std::all_of(runs.begin(), runs.end(), [](const RunSummary& run) {
    return run.samples_per_s.has_value();
  });
  if (timing) return timing_table(runs);
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

std::string timing_cells(const RunSummary& run) {
  return fmt::format("{},{},{},{},{},{}", optional_cell(run.samples_per_s, "{:.9g}"),
                     optional_cell(run.tokens_per_s, "{:.9g}"), optional_cell(run.model_flops_utilization, "{:.6f}"),
                     optional_cell(run.peak_memory_bytes, "{:.0f}"), optional_cell(run.idle_fraction, "{:.6f}"),
                     core::csv_field(run.layout));
}

std::string comparison_csv(std::span<const RunSummary> runs) {
  std::string out =
      "run,strategy,architecture,stragglers,simulated_s,time_to_target_s,final_val_loss,mean_staleness,"
      "waiting_fraction,bytes_sent,diverged_at_iteration," + std::string(kTimingColumns) + "\n";
  for (const RunSummary& run : runs) {
    out += fmt::format("{},{},{},{},{:.9g},{},{},{},{:.6f},{:.0f},{},{}\n", core::csv_field(run.run),
                       core::csv_field(run.strategy), core::csv_field(run.architecture),
                       core::csv_field(run.stragglers), run.simulated_s, optional_cell(run.time_to_target_s, "{:.9g}"),
                       optional_cell(run.final_val_loss, "{:.9g}"), optional_cell(run.mean_staleness, "{:.9g}"), run.waiting_fraction,
                       run.bytes_sent, run.diverged_at_iteration ? std::to_string(*run.diverged_at_iteration) : "",
                       timing_cells(run));
  }
  return out;
}

}  // namespace dtsim::analysis
