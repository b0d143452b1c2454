#include "topologies/hierarchical.hpp"

#include "topologies/fat_tree.hpp"
#include "topologies/mesh.hpp"
#include "topologies/parameter_server.hpp"
#include "topologies/ring.hpp"
#include "topologies/tree.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace dtsim::topologies {
namespace {

topology::TopologyGraph build_fabric(const scenario::Scenario& s, int endpoints) {
  const scenario::TopologySpec& t = s.topology;
  if (t.fabric == "ring") return build_ring(endpoints, t.link);
  if (t.fabric == "tree") return build_tree(endpoints, t.arity, t.link);
  if (t.fabric == "fat_tree") return build_fat_tree(endpoints, t.arity, t.oversubscription, t.link);
  if (t.fabric == "parameter_server") return build_parameter_server(endpoints, parameter_servers(s), t.link, t.server_link);
  if (t.fabric == "mesh") return build_mesh(endpoints, t.link);
  throw std::invalid_argument(fmt::format("a hierarchical topology cannot use a '{}' fabric", t.fabric));
}

}  // namespace

topology::TopologyGraph build_hierarchical(const scenario::Scenario& s) {
  topology::TopologyGraph graph;
  // Devices first, node by node, so that ranks follow nodes; each node's intra-node link class with it.
  std::vector<std::vector<topology::NodeId>> machines;
  std::vector<scenario::LinkSpec> intra_links;
  int placed = 0;
  for (const scenario::NodeGroup& group : s.cluster.nodes) {
    for (int n = 0; n < group.count && placed < s.cluster.workers; ++n) {
      const int machine = static_cast<int>(machines.size());
      std::vector<topology::NodeId>& devices = machines.emplace_back();
      for (int d = 0; d < group.devices && placed < s.cluster.workers; ++d, ++placed) {
        devices.push_back(graph.add_worker(fmt::format("node-{}-dev-{}", machine, d), machine));
      }
      intra_links.push_back(group.intra_link);
    }
  }
  if (placed < s.cluster.workers) {
    throw std::invalid_argument(
        fmt::format("{} workers need one device each, but the nodes hold only {}", s.cluster.workers, placed));
  }
  for (std::size_t m = 0; m < machines.size(); ++m) {
    const auto& devices = machines[m];
    for (std::size_t a = 0; a < devices.size(); ++a) {
      for (std::size_t b = a + 1; b < devices.size(); ++b) {
        graph.add_link(devices[a], devices[b], intra_links[m].bandwidth, intra_links[m].latency, "intra_node");
      }
    }
  }

  std::vector<topology::NodeId> endpoints;
  if (s.topology.nic_per_device) {
    endpoints.assign(graph.workers().begin(), graph.workers().end());
  } else {
    for (std::size_t m = 0; m < machines.size(); ++m) {
      const topology::NodeId nic = graph.add_switch(fmt::format("node-{}-nic", m));
      for (const topology::NodeId device : machines[m]) {
        graph.add_link(device, nic, intra_links[m].bandwidth, intra_links[m].latency, "nic");
      }
      endpoints.push_back(nic);
    }
  }

  const topology::TopologyGraph fabric = build_fabric(s, static_cast<int>(endpoints.size()));
  std::vector<topology::NodeId> joined(fabric.node_count());
  for (std::size_t rank = 0; rank < fabric.workers().size(); ++rank) joined[fabric.workers()[rank]] = endpoints[rank];
  for (topology::NodeId node = 0; node < fabric.node_count(); ++node) {
    const topology::NodeProperties& properties = fabric.node(node);
    if (properties.kind == topology::NodeKind::Switch) {
      joined[node] = graph.add_switch("fabric-" + properties.name);
    } else if (properties.kind == topology::NodeKind::Server) {
      joined[node] = graph.add_server("fabric-" + properties.name);
    }
  }
  for (std::size_t id = 0; id < fabric.link_count(); ++id) {
    const topology::LinkEnds& ends = fabric.link_ends(id);
    graph.add_link(joined[ends.a], joined[ends.b], fabric.link(id).bandwidth, fabric.link(id).latency,
                   "fabric/" + fabric.link(id).link_class);
  }
  return graph;
}

}  // namespace dtsim::topologies
