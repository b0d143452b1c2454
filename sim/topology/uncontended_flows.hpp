#pragma once
// Flows over the topology's routes, each as if it were alone: its route's latency, then its bytes at its
// route's slowest link. No flow slows another, so a collective's phase takes its algorithm's closed form on
// the bottleneck of its routes. The `closed_form` network model's core: the fastest estimate, blind to
// contention (fluid_flows.hpp shares the links).

#include "sim/topology/fluid_flows.hpp"

#include <span>
#include <vector>

namespace dtsim::topology {

/// When each flow's last byte arrives, in seconds, in the order of `flows`: posted at its start or once every
/// flow in its `after` has arrived, whichever is later, then its route's latency plus bytes over the route's
/// slowest bandwidth. Throws std::invalid_argument when flows wait for each other in a cycle, wait for a flow
/// outside the set, or go from a host to itself.
std::vector<double> uncontended_completion_times(const TopologyGraph& graph, const RoutingTable& routes,
                                                 std::span<const Flow> flows);

}  // namespace dtsim::topology
