#pragma once
// Turns a topology graph into a SimGrid platform: one host per worker or server (running at the
// device's sustained rate), one split-duplex link per graph link, and routes from the graph's routing
// table, computed as SimGrid asks for them (GraphZone).

#include "sim/scenario/scenario.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_graph.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <span>
#include <vector>

namespace dtsim::platform {

struct Platform {
  /// Indexed by topology node id; nullptr for switches (routes name their links directly).
  std::vector<simgrid::s4u::Host*> host_of_node;
  /// Indexed by topology link id.
  std::vector<simgrid::s4u::Link*> links;
  /// The routes SimGrid uses; owned by the platform's zone, which lives as long as the engine.
  const topology::RoutingTable* routes = nullptr;
};

/// Builds the platform in one zone. Call once per engine, after configure_network_model(). Worker r's host
/// runs `slowdown[r]` times slower than the device (all at full speed when `slowdown` is empty). Throws
/// std::runtime_error when the graph is not connected.
Platform build_platform(const topology::TopologyGraph& graph, const scenario::DeviceProfile& device,
                        std::span<const double> slowdown = {});

}  // namespace dtsim::platform
