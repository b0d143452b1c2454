#include "sim/platform/platform_builder.hpp"

#include "sim/compute/device_cost_model.hpp"

#include <simgrid/s4u/NetZone.hpp>

namespace dtsim::platform {

Platform build_platform(const topology::TopologyGraph& graph, const topology::RoutingTable& routes,
                        const scenario::DeviceProfile& device) {
  namespace s4u = simgrid::s4u;
  Platform platform;
  s4u::NetZone* zone = s4u::create_full_zone("cluster");

  platform.host_of_node.assign(graph.node_count(), nullptr);
  const double speed = compute::sustained_rate(device).value();
  for (const topology::NodeId node : graph.hosts()) {
    platform.host_of_node[node] = zone->create_host(graph.node(node).name, speed);
  }

  platform.links.reserve(graph.link_count());
  for (std::size_t id = 0; id < graph.link_count(); ++id) {
    const topology::LinkProperties& link = graph.link(id);
    s4u::Link* created = zone->create_split_duplex_link(link.name, link.bandwidth.value());
    created->set_latency(link.latency.value());
    platform.links.push_back(created);
  }

  for (const auto& [ends, route] : routes.routes()) {
    std::vector<s4u::LinkInRoute> hops;
    hops.reserve(route.size());
    for (const topology::Hop& hop : route) {
      hops.emplace_back(platform.links[hop.link],
                        hop.forward ? s4u::LinkInRoute::Direction::UP : s4u::LinkInRoute::Direction::DOWN);
    }
    // Symmetrical: SimGrid installs the reverse route with the hops reversed and their directions swapped,
    // which is exactly RoutingTable's reverse route.
    zone->add_route(platform.host_of_node[ends.first]->get_netpoint(), platform.host_of_node[ends.second]->get_netpoint(),
                    nullptr, nullptr, hops, true);
  }
  zone->seal();
  return platform;
}

}  // namespace dtsim::platform
