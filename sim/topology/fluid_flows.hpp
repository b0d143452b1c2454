#pragma once
// Flows over the topology's routes as a fluid: each flow pays its route's latency, then shares every link
// direction it crosses with the flows there under weighted max-min fairness, its rate bounded by its
// route's slowest link; rates are shared again whenever a flow starts moving bytes or ends. This is the
// sharing of SimGrid's CM02 model as dtsim configures it for `network_model: alpha_beta` (no TCP window, no
// cross traffic, latency and bandwidth factors of 1): a flow's weight is the inverse of its route latency,
// so that among flows crossing one bottleneck a longer route gets less, as TCP's round trip makes it.
// Computing a set of flows this way costs no simulation: it is the analytical network's core, tested
// against SimGrid on contended cases.

#include "sim/topology/routing.hpp"
#include "sim/topology/topology_graph.hpp"

#include <span>
#include <vector>

namespace dtsim::topology {

/// `bytes` from host `from` to host `to`, posted at `start` seconds, or later: once every flow in `after`
/// (indices into the same set) has arrived, as a message posted when earlier ones are done.
struct Flow {
  NodeId from = 0;
  NodeId to = 0;
  double bytes = 0.0;
  double start = 0.0;
  std::vector<std::size_t> after;
};

/// When each flow's last byte arrives, in seconds, in the order of `flows`. Throws std::invalid_argument
/// when flows wait for each other in a cycle.
std::vector<double> fluid_completion_times(const TopologyGraph& graph, const RoutingTable& routes,
                                           std::span<const Flow> flows);

/// Weighted max-min rates: `constraints[c]` is the capacity of constraint c; flow i crosses the
/// constraints `uses[i]`, has weight `weights[i]` (its share is proportional to it) and may not exceed
/// `bounds[i]`. Returns each flow's rate. Exposed for its tests.
std::vector<double> weighted_max_min(std::span<const double> capacities, std::span<const std::vector<std::size_t>> uses,
                                     std::span<const double> weights, std::span<const double> bounds);

}  // namespace dtsim::topology
