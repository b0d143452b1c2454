#include "sim/topology/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <stdexcept>

namespace dtsim::topology {
namespace {

constexpr int kUnreached = -1;

/// Hops from every node to `destination`, by breadth-first search.
std::vector<int> hops_to(const TopologyGraph& topology, NodeId destination) {
  const Graph& graph = topology.graph();
  std::vector<int> hops(topology.node_count(), kUnreached);
  std::deque<NodeId> frontier{destination};
  hops[destination] = 0;
  while (!frontier.empty()) {
    const NodeId node = frontier.front();
    frontier.pop_front();
    for (const auto edge : boost::make_iterator_range(boost::out_edges(node, graph))) {
      const NodeId next = boost::target(edge, graph);
      if (hops[next] != kUnreached) continue;
      hops[next] = hops[node] + 1;
      frontier.push_back(next);
    }
  }
  return hops;
}

/// A well-mixed, platform-independent hash of a pair and a hop index (splitmix64's finaliser).
std::uint64_t mix(std::uint64_t from, std::uint64_t to, std::uint64_t hop) {
  std::uint64_t z = (from * 0x9E3779B97F4A7C15ULL) ^ (to + 0xBF58476D1CE4E5B9ULL + (hop << 32U));
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

}  // namespace

RoutingTable::RoutingTable(const TopologyGraph& topology) {
  const Graph& graph = topology.graph();
  const std::vector<NodeId> hosts = topology.hosts();
  std::vector<std::size_t> candidates;
  for (const NodeId to : hosts) {
    const std::vector<int> hops = hops_to(topology, to);
    for (const NodeId from : hosts) {
      if (from >= to) continue;
      if (hops[from] == kUnreached) {
        throw std::runtime_error(fmt::format("the topology is not connected: no path from {} to {}",
                                             topology.node(from).name, topology.node(to).name));
      }
      Route route;
      for (NodeId at = from; at != to;) {
        // Every neighbour one hop closer starts a shortest path; out-edges come in insertion order.
        candidates.clear();
        for (const auto edge : boost::make_iterator_range(boost::out_edges(at, graph))) {
          if (hops[boost::target(edge, graph)] == hops[at] - 1) candidates.push_back(graph[edge].link);
        }
        const std::size_t link = candidates[mix(from, to, route.size()) % candidates.size()];
        const LinkEnds& ends = topology.link_ends(link);
        const bool forward = ends.a == at;
        route.push_back(Hop{link, forward});
        at = forward ? ends.b : ends.a;
      }
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
