#pragma once
// Every-to-every steps (a direct reduce-scatter, allgather or allreduce: each step, every rank sends a message
// of the same size to every other) timed from the loads of the links, for groups too large for the fluid
// model: their p(p-1) flows at once would each share the links anew with tens of thousands of others (256
// ranks: 84 s for one step).
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
// error against the fluid model is measured and bounded in tests (EveryToEveryLoads.*).

#include "sim/topology/routing.hpp"
#include "sim/topology/topology_graph.hpp"

#include <span>
#include <utility>
#include <vector>

namespace dtsim::topology {

/// The every-to-every pattern of a group of ranks on `hosts`: how many of its messages cross each link
/// direction, and each message's route latency and most loaded link direction. Computed once (every pair's
/// route walked twice, none kept), then each collective of the group costs one pass over its p(p-1) messages a
/// step: a training step's buckets reuse it. Holds two numbers per pair of ranks (4,096 ranks: 200 MB).
class EveryToEveryLoads {
 public:
  /// `hosts`: each rank's host, distinct. `graph` and `routes` are read here only.
  EveryToEveryLoads(const TopologyGraph& graph, const RoutingTable& routes, std::span<const NodeId> hosts);

  /// Each rank's end of the steps `step_bytes`, in step k every rank sending `step_bytes[k]` bytes to every
  /// other, the ranks arriving at `arrivals` (by rank).
  [[nodiscard]] std::vector<double> ends(std::span<const double> arrivals, std::span<const double> step_bytes) const;

  /// How many messages of one step cross each link direction (those crossed by any).
  [[nodiscard]] const std::vector<std::pair<Hop, double>>& crossings() const { return crossings_; }

 private:
  std::size_t ranks_ = 0;
  std::vector<std::size_t> rank_at_;  ///< by position in the hosts sorted by node id: the rank there
  /// By unordered pair (positions e > s, in the order e = 1.., s = 0..e-1): the route's latency.
  std::vector<double> latency_;
  /// By ordered pair (s to e, then e to s, in the same order): the most loaded link direction's messages
  /// over its bandwidth (seconds per byte of each message).
  std::vector<double> drain_;
  std::vector<std::pair<Hop, double>> crossings_;
};

}  // namespace dtsim::topology
