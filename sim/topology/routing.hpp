#pragma once
// Routes between hosts: fewest hops on the topology graph, found by breadth-first search.

#include "sim/topology/topology_graph.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace dtsim::topology {

/// One link of a route and the direction it is crossed in (forward = from LinkEnds::a to LinkEnds::b).
struct Hop {
  std::size_t link = 0;
  bool forward = true;
};

using Route = std::vector<Hop>;

/// Fewest-hop routes between hosts. Where several shortest paths exist (a torus, a fat tree), each hop
/// picks among the neighbours one hop closer by a fixed hash of the (source, destination) pair, so that
/// different pairs spread over the parallel paths as equal-cost multipath routing does, and the same graph
/// always gives the same routes. The route from b to a is the route from a to b reversed, unless the graph
/// has one-way links: then each direction is searched on its own, over the links it may cross.
///
/// Routes are computed on first request and kept: a simulation asks only for the pairs that communicate
/// (2p for a ring allreduce), so memory and time grow with those, not with all p^2 pairs; the search for
/// one route stops as soon as it reaches the source. Not thread-safe; SimGrid runs actors one at a time.
class RoutingTable {
 public:
  /// Keeps a reference to `graph`, which must outlive the table. Throws std::runtime_error naming two
  /// hosts that cannot reach each other.
  explicit RoutingTable(const TopologyGraph& graph);
  /// How a route's hop counts are found on a graph without one-way links: searches from both ends that meet
  /// in the middle (the default), or one search back from the destination (what one-way links need; tests
  /// compare the two). Both give the same routes.
  enum class Search { both_ends, from_destination };
  RoutingTable(const TopologyGraph& graph, Search search);

  [[nodiscard]] const Route& route(NodeId from, NodeId to) const;
  /// The latency of route(from, to): the sum of its links' latencies (0 from a node to itself), what an empty
  /// message takes on an idle network.
  [[nodiscard]] double latency(NodeId from, NodeId to) const;

  /// Calls `each(from, to, route)` for every ordered pair of distinct hosts of `hosts` (distinct node ids),
  /// with the route route() gives them, keeping none: the p(p-1) routes of an every-to-every pattern would not
  /// fit in memory. One search a host, each route then walked from its hop counts: p searches of the fabric
  /// and p(p-1) short walks, where route() would search p(p-1) times. `route` is valid during the call only.
  void for_each_route(std::span<const NodeId> hosts,
                      const std::function<void(NodeId from, NodeId to, const Route& route)>& each) const;

  /// Takes link `link` out of every route (a failed link), or puts it back: routes are searched again.
  /// References returned by route() before are invalid after.
  void set_down(std::size_t link, bool down);
  /// Which links are down, by id.
  [[nodiscard]] const std::vector<bool>& down() const { return down_; }
  /// With the links that are down: two hosts the first cannot reach (or be reached from), if any.
  [[nodiscard]] std::optional<std::pair<NodeId, NodeId>> partition() const;

 private:
  /// Breadth-first search backwards from `destination` into hops_ (hops to the destination, crossing links
  /// only the way traffic may), until `source` is reached (or everything, when `source` is the destination
  /// itself); returns whether it was. Nodes closer to the destination than the source then carry their exact
  /// hop counts, which is all a shortest path from the source needs.
  bool search_from(NodeId destination, NodeId source) const;
  /// The same search into `hops` and `reached` (for_each_route's own, so that its callback may call route()).
  bool search_from(NodeId destination, NodeId source, std::vector<int>& hops, std::vector<NodeId>& reached) const;
  /// Appends to `route` the link from `at` among `candidates` (links one hop closer to `end`) that the pair's
  /// hash picks, and returns the node it leads to: route() and for_each_route() must pick alike.
  NodeId take_hop(NodeId at, std::span<const std::size_t> candidates, NodeId start, NodeId end, Route& route) const;
  /// `route` walked the other way, into `back`.
  static void reverse_into(const Route& route, Route& back);
  /// Whether every host reaches `start` and `start` reaches every host.
  [[nodiscard]] std::optional<NodeId> unreachable_from(NodeId start) const;
  /// Sets the nodes search_from() and meet() reached back to unreached.
  void clear_search() const;
  /// On a graph without one-way links: grows breadth-first searches from `destination` (into hops_) and
  /// from `source` (into from_source_) a level at a time, the smaller frontier first, until they meet, and
  /// marks on_path_ the nodes of the source's search that lie on a shortest path. Returns the distance, or
  /// -1 when there is no route. A route across a large fabric then costs the two small balls around its
  /// ends, not every node nearer the destination than the source.
  int meet(NodeId source, NodeId destination) const;
  /// After meet(): whether `node`, `hops` from the source, lies on a shortest path of `distance` hops.
  [[nodiscard]] bool on_shortest_path(NodeId node, int hops, int distance) const;

  /// Whether a route may cross `link` from `at`: the graph allows it, and the link is not down.
  [[nodiscard]] bool usable(std::size_t link, NodeId at) const { return !down_[link] && graph_->can_leave(link, at); }

  const TopologyGraph* graph_;
  Search search_ = Search::both_ends;
  std::vector<bool> down_;
  mutable std::vector<int> hops_;        ///< hops to the current search's destination, or -1
  mutable std::vector<NodeId> reached_;  ///< nodes with hops_ set, to clear after the search
  mutable std::vector<int> from_source_;  ///< meet(): hops from the source, or -1
  mutable std::vector<bool> on_path_;     ///< meet(): nodes of the source's search on a shortest path
  mutable std::vector<NodeId> reached_from_source_;
  /// The routes searched so far, both node ids in one key: a hash map, since a timing-only run of thousands of
  /// ranks looks routes up millions of times, and an ordered map's walk down its tree was a tenth of such a run.
  mutable std::unordered_map<std::uint64_t, Route> routes_;
};

}  // namespace dtsim::topology
