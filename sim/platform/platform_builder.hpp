#pragma once
// Turns a topology graph into a SimGrid platform: one host per worker or server (running at the
// device's sustained rate), one split-duplex link per graph link, and the routing table's routes.

#include "sim/scenario/scenario.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_graph.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <vector>

namespace dtsim::platform {

struct Platform {
  /// Indexed by topology node id; nullptr for switches (routes name their links directly).
  std::vector<simgrid::s4u::Host*> host_of_node;
  /// Indexed by topology link id.
  std::vector<simgrid::s4u::Link*> links;
};

/// Builds the platform in one full-routing zone. Call once per engine, after configure_network_model().
Platform build_platform(const topology::TopologyGraph& graph, const topology::RoutingTable& routes,
                        const scenario::DeviceProfile& device);

}  // namespace dtsim::platform
