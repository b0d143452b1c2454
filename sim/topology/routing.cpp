#include "sim/topology/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <stdexcept>

namespace dtsim::topology {
namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

/// For every node, the link through which breadth-first search from `source` first reached it.
std::vector<std::size_t> bfs_parent_links(const TopologyGraph& topology, NodeId source) {
  const Graph& graph = topology.graph();
  std::vector<std::size_t> parent(topology.node_count(), kNone);
  std::vector<bool> seen(topology.node_count(), false);
  std::deque<NodeId> frontier{source};
  seen[source] = true;
  while (!frontier.empty()) {
    const NodeId node = frontier.front();
    frontier.pop_front();
    // Out-edges come in insertion order (vecS), which makes the tie-break deterministic.
    for (const auto edge : boost::make_iterator_range(boost::out_edges(node, graph))) {
      const NodeId next = boost::target(edge, graph);
      if (seen[next]) continue;
      seen[next] = true;
      parent[next] = graph[edge].link;
      frontier.push_back(next);
    }
  }
  return parent;
}

}  // namespace

RoutingTable::RoutingTable(const TopologyGraph& topology) {
  const std::vector<NodeId> hosts = topology.hosts();
  for (const NodeId from : hosts) {
    const std::vector<std::size_t> parent = bfs_parent_links(topology, from);
    for (const NodeId to : hosts) {
      if (to <= from) continue;
      Route route;
      for (NodeId at = to; at != from;) {
        const std::size_t link = parent[at];
        if (link == kNone) {
          throw std::runtime_error(fmt::format("the topology is not connected: no path from {} to {}",
                                               topology.node(from).name, topology.node(to).name));
        }
        const LinkEnds& ends = topology.link_ends(link);
        const bool forward = ends.b == at;
        route.push_back(Hop{link, forward});
        at = forward ? ends.a : ends.b;
      }
      std::reverse(route.begin(), route.end());
      Route back;
      for (auto it = route.rbegin(); it != route.rend(); ++it) back.push_back(Hop{it->link, !it->forward});
      reversed_.emplace(std::pair{to, from}, std::move(back));
      routes_.emplace(std::pair{from, to}, std::move(route));
    }
  }
}

const Route& RoutingTable::route(NodeId from, NodeId to) const {
  if (const auto it = routes_.find({from, to}); it != routes_.end()) return it->second;
  if (const auto it = reversed_.find({from, to}); it != reversed_.end()) return it->second;
  throw std::out_of_range(fmt::format("no route between nodes {} and {}", from, to));
}

}  // namespace dtsim::topology
