#include "sim/topology/link_traffic.hpp"

namespace dtsim::topology {

LinkTraffic::LinkTraffic(const TopologyGraph& graph, const RoutingTable& routes)
    : graph_(&graph), routes_(&routes), hosts_(graph.hosts()), forward_(graph.link_count(), 0.0), backward_(graph.link_count(), 0.0) {}

void LinkTraffic::add(int from, int to, double bytes) {
  if (from == to) return;
  const Route& route = routes_->route(hosts_.at(static_cast<std::size_t>(from)), hosts_.at(static_cast<std::size_t>(to)));
  for (const Hop& hop : route) (hop.forward ? forward_ : backward_)[hop.link] += bytes;
}

double LinkTraffic::latency(int from, int to) const {
  if (from == to) return 0.0;
  double sum = 0.0;
  for (const Hop& hop : routes_->route(hosts_.at(static_cast<std::size_t>(from)), hosts_.at(static_cast<std::size_t>(to)))) {
    sum += graph_->link(hop.link).latency.value();
  }
  return sum;
}

}  // namespace dtsim::topology
