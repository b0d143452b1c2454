#pragma once
// Every-to-every steps (a direct reduce-scatter, allgather or allreduce: each step, every rank sends a message
// to every other) timed from the loads of the links, for groups too large for the fluid model: their p(p-1)
// flows at once would each share the links anew with tens of thousands of others (256 ranks: 84 s for one step).
//
// A step's message from s to d is posted once s and d are both done with their previous step (or have
// arrived), and takes its route's latency plus the time its most loaded link direction needs to carry the
// whole step's bytes over it: each link direction's load is the sum of the step's messages crossing it. A rank
// is done with a step when the last message it sends or receives in it has arrived.
//
// This is the fluid model's bottleneck without its sharing: alone on its route a message takes latency plus
// bytes over bandwidth, as there; where many share a link, that link carries the step's bytes at its full
// rate, as max-min keeps a bottleneck full. It is not the fluid model: a message whose bottleneck empties
// early is not sped up by the capacity left behind, and the steps of different ranks are not overlapped; the
// error against the fluid model is measured and bounded in tests (sim/every_to_every_loads_test).

#include "sim/topology/routing.hpp"
#include "sim/topology/topology_graph.hpp"

#include <span>
#include <utility>
#include <vector>

namespace dtsim::topology {

struct EveryToEveryTimes {
  std::vector<double> ends;                       ///< by rank: when it is done with its last step
  std::vector<std::pair<Hop, double>> crossings;  ///< the bytes that crossed each link direction, all steps
};

/// Ranks on `hosts` (distinct), arriving at `arrivals`, run the steps `step_bytes`: in step k, rank r sends
/// `step_bytes[k][r]` bytes to every other rank.
EveryToEveryTimes every_to_every_times(const TopologyGraph& graph, const RoutingTable& routes,
                                       std::span<const NodeId> hosts, std::span<const double> arrivals,
                                       std::span<const std::vector<double>> step_bytes);

}  // namespace dtsim::topology
