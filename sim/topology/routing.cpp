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

/// A well-mixed, platform-independent hash of a pair and a hop index (splitmix64's finaliser).
std::uint64_t mix(std::uint64_t from, std::uint64_t to, std::uint64_t hop) {
  std::uint64_t z = (from * 0x9E3779B97F4A7C15ULL) ^ (to + 0xBF58476D1CE4E5B9ULL + (hop << 32U));
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

}  // namespace

RoutingTable::RoutingTable(const TopologyGraph& topology) : graph_(&topology) {
  const std::vector<NodeId> hosts = topology.hosts();
  if (hosts.empty()) return;
  const std::vector<int>& hops = hops_to(hosts.front());
  for (const NodeId host : hosts) {
    if (hops[host] == kUnreached) {
      throw std::runtime_error(fmt::format("the topology is not connected: no path from {} to {}",
                                           topology.node(hosts.front()).name, topology.node(host).name));
    }
  }
}

const std::vector<int>& RoutingTable::hops_to(NodeId destination) const {
  const auto cached = hops_.find(destination);
  if (cached != hops_.end()) return cached->second;
  const Graph& graph = graph_->graph();
  std::vector<int> hops(graph_->node_count(), kUnreached);
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
  return hops_.emplace(destination, std::move(hops)).first->second;
}

const Route& RoutingTable::route(NodeId from, NodeId to) const {
  if (const auto it = routes_.find({from, to}); it != routes_.end()) return it->second;
  if (from == to || from >= graph_->node_count() || to >= graph_->node_count()) {
    throw std::out_of_range(fmt::format("no route between nodes {} and {}", from, to));
  }
  // Computed from the lower id to the higher; the other direction is its reverse.
  const NodeId low = std::min(from, to);
  const NodeId high = std::max(from, to);
  const Graph& graph = graph_->graph();
  const std::vector<int>& hops = hops_to(high);
  if (hops[low] == kUnreached) throw std::out_of_range(fmt::format("no route between nodes {} and {}", from, to));
  Route route;
  std::vector<std::size_t> candidates;
  for (NodeId at = low; at != high;) {
    // Every neighbour one hop closer starts a shortest path; out-edges come in insertion order.
    candidates.clear();
    for (const auto edge : boost::make_iterator_range(boost::out_edges(at, graph))) {
      if (hops[boost::target(edge, graph)] == hops[at] - 1) candidates.push_back(graph[edge].link);
    }
    const std::size_t link = candidates[mix(low, high, route.size()) % candidates.size()];
    const LinkEnds& ends = graph_->link_ends(link);
    const bool forward = ends.a == at;
    route.push_back(Hop{link, forward});
    at = forward ? ends.b : ends.a;
  }
  Route back;
  for (auto it = route.rbegin(); it != route.rend(); ++it) back.push_back(Hop{it->link, !it->forward});
  routes_.emplace(std::pair{high, low}, std::move(back));
  routes_.emplace(std::pair{low, high}, std::move(route));
  return routes_.at({from, to});
}

}  // namespace dtsim::topology
