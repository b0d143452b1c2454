#pragma once
// Links' utilization over time on a cluster of several jobs: each job's bytes per link direction between its
// iteration ends (as its transports counted them), spread evenly over the time it was on its devices in between,
// summed over the jobs in bins of equal width over the makespan.

#include "sim/metrics/run_record.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace dtsim::metrics {

/// A job's bytes on each link direction (by its index in the record's `links`) since its previous sample.
struct LinkSample {
  double at_s = 0.0;
  std::vector<std::pair<std::size_t, double>> bytes;
};

/// One job's samples, from its start; `off` the times it was off its devices (stopped for another job).
struct JobLinkSamples {
  const RunRecord* record = nullptr;
  double start_s = 0.0;
  std::vector<std::pair<double, double>> off;
  std::vector<LinkSample> samples;
};

struct LinkTimeline {
  double bin_s = 0.0;
  std::vector<LinkLoad> links;                   ///< the busiest directions over the makespan, busiest first
  std::vector<std::vector<double>> utilization;  ///< [link][bin]: bytes over what the direction could carry
};

/// The `links` busiest link directions' utilization in `bins` bins from 0 to `makespan_s` (every job's record lists
/// the cluster's link directions in one order).
LinkTimeline link_timeline(std::span<const JobLinkSamples> jobs, double makespan_s, std::size_t bins, std::size_t links);

/// t_s,link,from,to,utilization: each bin's start and each link's utilization in it.
std::string link_timeline_csv(const LinkTimeline& timeline);

}  // namespace dtsim::metrics
