#include "sim/platform/platform_builder.hpp"

#include "sim/compute/device_cost_model.hpp"
#include "sim/platform/graph_zone.hpp"

#include <simgrid/s4u/NetZone.hpp>

namespace dtsim::platform {

Platform build_platform(const topology::TopologyGraph& graph, const scenario::DeviceProfile& device,
                        std::span<const double> slowdown) {
  namespace s4u = simgrid::s4u;
  Platform platform;
  // The engine owns and destroys its zones.
  auto* zone = new GraphZone("cluster", graph);
  s4u::NetZone* iface = zone->get_iface();
  platform.routes = &zone->routes();

  platform.host_of_node.assign(graph.node_count(), nullptr);
  const double speed = compute::sustained_rate(device).value();
  std::vector<double> factor(graph.node_count(), 1.0);
  for (std::size_t rank = 0; rank < slowdown.size() && rank < graph.workers().size(); ++rank) {
    factor[graph.workers()[rank]] = slowdown[rank];
  }
  for (const topology::NodeId node : graph.hosts()) {
    s4u::Host* host = iface->create_host(graph.node(node).name, speed / factor[node]);
    zone->bind_host(host->get_netpoint(), node);
    platform.host_of_node[node] = host;
  }

  platform.links.reserve(graph.link_count());
  for (std::size_t id = 0; id < graph.link_count(); ++id) {
    const topology::LinkProperties& link = graph.link(id);
    s4u::SplitDuplexLink* created = iface->create_split_duplex_link(link.name, link.bandwidth.value());
    created->set_latency(link.latency.value());
    zone->bind_link(id, created->get_link_up()->get_impl(), created->get_link_down()->get_impl());
    platform.links.push_back(created);
  }
  iface->seal();
  return platform;
}

}  // namespace dtsim::platform
