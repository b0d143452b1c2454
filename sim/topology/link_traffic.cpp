#include "sim/topology/link_traffic.hpp"

namespace dtsim::topology {

LinkTraffic::LinkTraffic(const TopologyGraph& graph, const RoutingTable& routes)
    : routes_(&routes), hosts_(graph.hosts()), forward_(graph.link_count(), 0.0), backward_(graph.link_count(), 0.0) {}

void LinkTraffic::add(int from, int to, double bytes) {
  if (from == to) return;
  const Route& route = routes_->route(hosts_.at(static_cast<std::size_t>(from)), hosts_.at(static_cast<std::size_t>(to)));
  for (const Hop& hop : route) (hop.forward ? forward_ : backward_)[hop.link] += bytes;
}

}  // namespace dtsim::topology
