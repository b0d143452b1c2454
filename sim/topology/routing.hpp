#pragma once
// Routes between hosts: fewest hops on the topology graph, found by breadth-first search.

#include "sim/topology/topology_graph.hpp"

#include <map>
#include <utility>
#include <vector>

namespace dtsim::topology {

/// One link of a route and the direction it is crossed in (forward = from LinkEnds::a to LinkEnds::b).
struct Hop {
  std::size_t link = 0;
  bool forward = true;
};

using Route = std::vector<Hop>;

/// Fewest-hop routes between every ordered pair of hosts. Where several shortest paths exist (a torus, a
/// fat tree), each hop picks among the neighbours one hop closer by a fixed hash of the (source,
/// destination) pair, so that different pairs spread over the parallel paths as equal-cost multipath
/// routing does, and the same graph always gives the same routes. The route from b to a is the route
/// from a to b reversed.
class RoutingTable {
 public:
  /// Throws std::runtime_error naming two hosts that cannot reach each other.
  explicit RoutingTable(const TopologyGraph& graph);

  [[nodiscard]] const Route& route(NodeId from, NodeId to) const;
  /// Pairs (from, to) with from < to, in ascending order; their reverses are implied.
  [[nodiscard]] const std::map<std::pair<NodeId, NodeId>, Route>& routes() const { return routes_; }

 private:
  std::map<std::pair<NodeId, NodeId>, Route> routes_;
  std::map<std::pair<NodeId, NodeId>, Route> reversed_;
};

}  // namespace dtsim::topology
