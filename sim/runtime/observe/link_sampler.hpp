#pragma once
// A job's bytes on each link direction at each of its iteration ends, as the differences since the last: what
// the cluster's links' utilization over time is made of (metrics/link_timeline.hpp).

#include "sim/metrics/link_timeline.hpp"
#include "sim/runtime/observe/run_observer.hpp"
#include "sim/topology/topology_graph.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace dtsim::runtime {

class LinkSampler final : public RunObserver {
 public:
  /// `graph` (the cluster's) must outlive it.
  explicit LinkSampler(const topology::TopologyGraph& graph) : graph_(&graph) {}

  void on_iteration(std::int64_t iteration, double at_s, const topology::LinkTraffic& traffic) override;
  [[nodiscard]] std::vector<metrics::LinkSample> take() { return std::move(samples_); }

 private:
  const topology::TopologyGraph* graph_;
  std::vector<double> seen_;  ///< each direction's bytes at the last sample, in the record's order
  std::vector<metrics::LinkSample> samples_;
};

}  // namespace dtsim::runtime
