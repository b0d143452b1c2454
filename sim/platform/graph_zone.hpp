#pragma once
// A SimGrid network zone whose routes come from dtsim's own RoutingTable, computed when SimGrid first asks
// for them. SimGrid's full-routing zone needs every host pair's route before the simulation starts, which
// costs O(p^2) routes (O(p^3) hops on a ring) and made 1,024 ranks take 8 GB; here memory and time grow
// with the pairs that actually communicate.

#include "sim/topology/routing.hpp"
#include "sim/topology/topology_graph.hpp"

#include <simgrid/kernel/routing/NetZoneImpl.hpp>

#include <unordered_map>
#include <vector>

namespace dtsim::platform {

class GraphZone final : public simgrid::kernel::routing::NetZoneImpl {
 public:
  /// Copies `graph`; routes follow topology::RoutingTable on the copy. Must be the engine's first zone.
  GraphZone(const std::string& name, const topology::TopologyGraph& graph);

  /// Declares that SimGrid's `netpoint` is the graph's host `node`.
  void bind_host(const simgrid::kernel::routing::NetPoint* netpoint, topology::NodeId node);
  /// Declares the SimGrid link of graph link `link` in each direction (forward: LinkEnds::a to b).
  void bind_link(std::size_t link, simgrid::kernel::resource::StandardLinkImpl* forward,
                 simgrid::kernel::resource::StandardLinkImpl* backward);

  [[nodiscard]] const topology::RoutingTable& routes() const { return routes_; }
  /// A failed link (or one back in service): messages that start from now on are routed around it.
  void set_link_down(std::size_t link, bool down) { routes_.set_down(link, down); }

  void get_local_route(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override;

 private:
  topology::TopologyGraph graph_;
  topology::RoutingTable routes_;
  std::unordered_map<const simgrid::kernel::routing::NetPoint*, topology::NodeId> node_of_;
  std::vector<simgrid::kernel::resource::StandardLinkImpl*> forward_;
  std::vector<simgrid::kernel::resource::StandardLinkImpl*> backward_;
};

}  // namespace dtsim::platform
