#include "sim/topology/uniform_shift.hpp"

#include <limits>
#include <vector>

namespace dtsim::topology {

bool uniform_shift(const TopologyGraph& graph, const RoutingTable& routes, std::span<const NodeId> rank_nodes,
                   int shift, bool reverse_traffic) {
  const auto p = static_cast<int>(rank_nodes.size());
  const int d = ((shift % p) + p) % p;
  if (d == 0) return false;
  // Two flags per link: crossed forward, crossed backward.
  std::vector<bool> used(2 * graph.link_count(), false);
  const auto claim = [&](const Hop& hop) {
    const std::size_t slot = 2 * hop.link + (hop.forward ? 0 : 1);
    if (used[slot]) return false;
    used[slot] = true;
    return true;
  };
  double latency = -1.0;
  double bottleneck = -1.0;
  for (int r = 0; r < p; ++r) {
    const NodeId from = rank_nodes[static_cast<std::size_t>(r)];
    const NodeId to = rank_nodes[static_cast<std::size_t>((r + d) % p)];
    const Route& route = routes.route(from, to);
    double route_latency = 0.0;
    double route_bottleneck = std::numeric_limits<double>::infinity();
    for (const Hop& hop : route) {
      const LinkProperties& link = graph.link(hop.link);
      route_latency += link.latency.value();
      route_bottleneck = std::min(route_bottleneck, link.bandwidth.value());
      if (!claim(hop)) return false;
    }
    // The acknowledgements take the route back, which on one-way links is another way round.
    if (reverse_traffic) {
      for (const Hop& hop : routes.route(to, from)) {
        if (!claim(hop)) return false;
      }
    }
    if (r == 0) {
      latency = route_latency;
      bottleneck = route_bottleneck;
    } else if (route_latency != latency || route_bottleneck != bottleneck) {
      return false;
    }
  }
  return true;
}

}  // namespace dtsim::topology
