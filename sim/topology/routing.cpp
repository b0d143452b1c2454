#include "sim/topology/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <stdexcept>

namespace dtsim::topology {
namespace {

/// A route's key in the table: both node ids in one word (a graph holds far fewer than 2^32 nodes).
std::uint64_t route_key(NodeId from, NodeId to) { return (static_cast<std::uint64_t>(from) << 32U) | to; }

constexpr int kUnreached = -1;

/// A well-mixed, platform-independent hash of a pair and a hop index (splitmix64's finaliser).
std::uint64_t mix(std::uint64_t from, std::uint64_t to, std::uint64_t hop) {
  std::uint64_t z = (from * 0x9E3779B97F4A7C15ULL) ^ (to + 0xBF58476D1CE4E5B9ULL + (hop << 32U));
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

}  // namespace

RoutingTable::RoutingTable(const TopologyGraph& topology, Search search) : RoutingTable(topology) {
  search_ = search;
}

RoutingTable::RoutingTable(const TopologyGraph& topology)
    : graph_(&topology), down_(topology.link_count(), false), hops_(topology.node_count(), kUnreached),
      from_source_(topology.node_count(), kUnreached), on_path_(topology.node_count(), false) {
  const std::vector<NodeId> hosts = topology.hosts();
  if (hosts.empty()) return;
  if (const auto lost = unreachable_from(hosts.front())) {
    throw std::runtime_error(fmt::format("the topology is not connected: no path from {} to {}",
                                         topology.node(hosts.front()).name, topology.node(*lost).name));
  }
}

std::optional<NodeId> RoutingTable::unreachable_from(NodeId start) const {
  const std::vector<NodeId> hosts = graph_->hosts();
  std::optional<NodeId> lost;
  search_from(start, start);  // who reaches start
  for (const NodeId host : hosts) {
    if (hops_[host] == kUnreached && !lost) lost = host;
  }
  clear_search();
  if (lost || !graph_->has_one_way_links()) return lost;
  // With one-way links, reaching start does not mean being reached from it.
  for (const NodeId host : hosts) {
    if (host == start) continue;
    const bool reached = search_from(host, start);
    clear_search();
    if (!reached) return host;
  }
  return std::nullopt;
}

bool RoutingTable::search_from(NodeId destination, NodeId source) const {
  return search_from(destination, source, hops_, reached_);
}

bool RoutingTable::search_from(NodeId destination, NodeId source, std::vector<int>& hops,
                               std::vector<NodeId>& reached) const {
  const Graph& graph = graph_->graph();
  std::deque<NodeId> frontier{destination};
  hops[destination] = 0;
  reached.push_back(destination);
  while (!frontier.empty()) {
    const NodeId node = frontier.front();
    frontier.pop_front();
    for (const auto edge : boost::make_iterator_range(boost::out_edges(node, graph))) {
      const NodeId next = boost::target(edge, graph);
      if (hops[next] != kUnreached || !usable(graph[edge].link, next)) continue;
      hops[next] = hops[node] + 1;
      reached.push_back(next);
      // Every node nearer than the source has been reached by now: levels are completed in order.
      if (next == source) return true;
      frontier.push_back(next);
    }
  }
  return hops[source] != kUnreached;
}

NodeId RoutingTable::take_hop(NodeId at, std::span<const std::size_t> candidates, NodeId start, NodeId end,
                              Route& route) const {
  const std::size_t link = candidates[mix(start, end, route.size()) % candidates.size()];
  const LinkEnds& ends = graph_->link_ends(link);
  const bool forward = ends.a == at;
  route.push_back(Hop{link, forward});
  return forward ? ends.b : ends.a;
}

void RoutingTable::reverse_into(const Route& route, Route& back) {
  back.clear();
  for (auto it = route.rbegin(); it != route.rend(); ++it) back.push_back(Hop{it->link, !it->forward});
}

void RoutingTable::clear_search() const {
  for (const NodeId node : reached_) hops_[node] = kUnreached;
  reached_.clear();
  for (const NodeId node : reached_from_source_) {
    from_source_[node] = kUnreached;
    on_path_[node] = false;
  }
  reached_from_source_.clear();
}

void RoutingTable::set_down(std::size_t link, bool down) {
  if (down_.at(link) == down) return;
  down_[link] = down;
  routes_.clear();
}

std::optional<std::pair<NodeId, NodeId>> RoutingTable::partition() const {
  const std::vector<NodeId> hosts = graph_->hosts();
  if (hosts.empty()) return std::nullopt;
  if (const auto lost = unreachable_from(hosts.front())) return std::pair{hosts.front(), *lost};
  return std::nullopt;
}

int RoutingTable::meet(NodeId source, NodeId destination) const {
  const Graph& graph = graph_->graph();
  std::vector<NodeId> to_level{destination};
  std::vector<NodeId> from_level{source};
  hops_[destination] = 0;
  reached_.push_back(destination);
  from_source_[source] = 0;
  reached_from_source_.push_back(source);
  int to_radius = 0;
  int from_radius = 0;
  int distance = std::numeric_limits<int>::max();
  const auto consider = [&](NodeId node) {
    if (hops_[node] != kUnreached && from_source_[node] != kUnreached) {
      distance = std::min(distance, hops_[node] + from_source_[node]);
    }
  };
  consider(source);
  std::vector<NodeId> next_level;
  // Both searches hold complete levels; once they share a node, the shortest path is the least sum over
  // the shared nodes (one node of every shortest path is within both radii).
  while (distance == std::numeric_limits<int>::max()) {
    const bool grow_destination = to_level.size() <= from_level.size();
    std::vector<NodeId>& level = grow_destination ? to_level : from_level;
    std::vector<int>& hops = grow_destination ? hops_ : from_source_;
    std::vector<NodeId>& reached = grow_destination ? reached_ : reached_from_source_;
    if (level.empty()) return kUnreached;
    next_level.clear();
    for (const NodeId node : level) {
      for (const auto edge : boost::make_iterator_range(boost::out_edges(node, graph))) {
        const NodeId next = boost::target(edge, graph);
        if (hops[next] != kUnreached || !usable(graph[edge].link, next)) continue;
        hops[next] = hops[node] + 1;
        reached.push_back(next);
        next_level.push_back(next);
      }
    }
    level.swap(next_level);
    ++(grow_destination ? to_radius : from_radius);
    for (const NodeId node : level) consider(node);
  }
  // Nodes of the source's search on a shortest path, from its outer level in: those the destination's
  // search reached at the remaining distance, and those one hop before a node on the path.
  std::vector<std::vector<NodeId>> by_hops(static_cast<std::size_t>(from_radius) + 1);
  for (const NodeId node : reached_from_source_) by_hops[static_cast<std::size_t>(from_source_[node])].push_back(node);
  for (int k = from_radius; k >= 0; --k) {
    for (const NodeId node : by_hops[static_cast<std::size_t>(k)]) {
      bool on = hops_[node] != kUnreached && hops_[node] == distance - k;
      for (auto edge = boost::out_edges(node, graph).first; !on && edge != boost::out_edges(node, graph).second; ++edge) {
        on = on_shortest_path(boost::target(*edge, graph), k + 1, distance) && usable(graph[*edge].link, node);
      }
      on_path_[node] = on;
    }
  }
  return distance;
}

bool RoutingTable::on_shortest_path(NodeId node, int hops, int distance) const {
  if (hops_[node] != kUnreached) return hops_[node] == distance - hops;
  return from_source_[node] == hops && on_path_[node];
}

double RoutingTable::latency(NodeId from, NodeId to) const {
  double sum = 0.0;
  if (from != to) {
    for (const Hop& hop : route(from, to)) sum += graph_->link(hop.link).latency.value();
  }
  return sum;
}

const Route& RoutingTable::route(NodeId from, NodeId to) const {
  if (const auto it = routes_.find(route_key(from, to)); it != routes_.end()) return it->second;
  if (from == to || from >= graph_->node_count() || to >= graph_->node_count()) {
    throw std::out_of_range(fmt::format("no route between nodes {} and {}", from, to));
  }
  // Without one-way links a route is computed from the lower id to the higher, and the other direction is
  // its reverse; with them, each direction is its own search.
  const bool directed = graph_->has_one_way_links();
  const bool whole = directed || search_ == Search::from_destination;
  const NodeId start = directed ? from : std::min(from, to);
  const NodeId end = directed ? to : std::max(from, to);
  const Graph& graph = graph_->graph();
  // Undirected graphs meet in the middle; one-way links search the whole way back from the destination.
  const int distance = whole ? (search_from(end, start) ? hops_[start] : kUnreached) : meet(start, end);
  if (distance == kUnreached) {
    clear_search();
    throw std::out_of_range(fmt::format("no route between nodes {} and {}", from, to));
  }
  Route route;
  std::vector<std::size_t> candidates;
  int walked = 0;
  for (NodeId at = start; at != end; ++walked) {
    // Every neighbour one hop closer to the destination starts a shortest path; out-edges come in insertion
    // order. (A node's hop count to the destination is known near it; nearer the source, a neighbour one
    // hop further from the source on a shortest path is one hop closer.)
    candidates.clear();
    for (const auto edge : boost::make_iterator_range(boost::out_edges(at, graph))) {
      const std::size_t link = graph[edge].link;
      const NodeId next = boost::target(edge, graph);
      const bool closer = whole ? hops_[next] == hops_[at] - 1 : on_shortest_path(next, walked + 1, distance);
      if (closer && usable(link, at)) candidates.push_back(link);
    }
    at = take_hop(at, candidates, start, end, route);
  }
  clear_search();
  if (!directed) {
    Route back;
    reverse_into(route, back);
    routes_.emplace(route_key(end, start), std::move(back));
  }
  routes_.emplace(route_key(start, end), std::move(route));
  return routes_.at(route_key(from, to));
}

void RoutingTable::for_each_route(std::span<const NodeId> hosts,
                                  const std::function<void(NodeId from, NodeId to, const Route& route)>& each) const {
  const Graph& graph = graph_->graph();
  const bool directed = graph_->has_one_way_links();
  // route() walks an undirected pair from the lower node id to the higher and reverses it for the way back; a
  // whole search from the higher one gives the same candidates at every hop (a neighbour one hop closer to the
  // destination lies on a shortest path), so the same hash picks the same links.
  std::vector<NodeId> sorted(hosts.begin(), hosts.end());
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    throw std::invalid_argument("for_each_route needs distinct hosts");
  }
  // Hop counts of its own (each may call route(), which searches into hops_), and each node's links one hop
  // closer to the current destination, found when a walk first reaches it.
  std::vector<int> hops(graph_->node_count(), kUnreached);
  std::vector<NodeId> reached;
  std::vector<std::vector<std::size_t>> closer(graph_->node_count());
  std::vector<std::size_t> found_for(graph_->node_count(), std::numeric_limits<std::size_t>::max());
  Route route;
  Route back;
  for (std::size_t e = 0; e < sorted.size(); ++e) {
    const NodeId end = sorted[e];
    for (const NodeId node : reached) hops[node] = kUnreached;
    reached.clear();
    search_from(end, end, hops, reached);  // the whole graph: the source is the destination
    const auto walk = [&](NodeId start) {
      if (hops[start] == kUnreached) {
        throw std::out_of_range(fmt::format("no route between nodes {} and {}", start, end));
      }
      route.clear();
      for (NodeId at = start; at != end;) {
        if (found_for[at] != e) {
          found_for[at] = e;
          closer[at].clear();
          for (const auto edge : boost::make_iterator_range(boost::out_edges(at, graph))) {
            const std::size_t link = graph[edge].link;
            if (hops[boost::target(edge, graph)] == hops[at] - 1 && usable(link, at)) closer[at].push_back(link);
          }
        }
        at = take_hop(at, closer[at], start, end, route);
      }
    };
    if (directed) {
      for (const NodeId start : sorted) {
        if (start == end) continue;
        walk(start);
        each(start, end, route);
      }
    } else {
      for (std::size_t s = 0; s < e; ++s) {
        walk(sorted[s]);
        each(sorted[s], end, route);
        reverse_into(route, back);
        each(end, sorted[s], back);
      }
    }
  }
}

}  // namespace dtsim::topology
