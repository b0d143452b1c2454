#pragma once
// Links that fail, and come back after their repair: a daemon actor takes each out of the routes at its
// time (messages that start afterwards go around it; those already crossing it finish) and puts it back.
// When a failed link leaves two hosts without any route, the job is partitioned: the partition is
// reported and every actor stops.

#include "sim/platform/graph_zone.hpp"
#include "sim/runtime/observe/run_observer.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/topology_graph.hpp"

#include <vector>

namespace dtsim::runtime {

class LinkFailures {
 public:
  LinkFailures(const scenario::FailureSpec& spec, const topology::TopologyGraph& graph, platform::GraphZone& zone,
               RunObserver& observer);
  void operator()();

 private:
  struct Change {
    double at_s = 0.0;
    std::size_t link = 0;
    bool down = true;
  };
  std::vector<Change> changes_;  ///< in time order
  const topology::TopologyGraph* graph_;
  platform::GraphZone* zone_;
  RunObserver* observer_;
};

}  // namespace dtsim::runtime
