#pragma once
// The report's charts as Vega-Lite specifications, each with its data inline: losses and accuracies against
// simulated time and iterations, iteration time and throughput of timing-only runs, time per host split into
// compute, communication and waiting, the busiest links, staleness, energy, and the Gantt view of the
// first iterations. Several runs share each chart's axes, one colour per run.

#include "analysis/report_data.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dtsim::analysis {

struct Chart {
  std::string title;
  std::string caption;  ///< what to look at
  nlohmann::json spec;  ///< Vega-Lite
};

/// Every chart the runs have data for, in reading order.
std::vector<Chart> run_charts(const std::vector<ReportRun>& runs);

/// Hosts a per-host chart shows at most: beyond, an even sample of them.
inline constexpr std::size_t kChartHosts = 128;
/// Beyond this many hosts a split run's time is drawn per pipeline stage and tensor rank, not per host.
inline constexpr std::size_t kStageChartHosts = 32;
/// Link directions per run in the busiest-links chart.
inline constexpr std::size_t kChartLinks = 10;

}  // namespace dtsim::analysis
