#include "topologies/hierarchical.hpp"

#include "topologies/fat_tree.hpp"
#include "topologies/mesh.hpp"
#include "topologies/parameter_server.hpp"
#include "topologies/ring.hpp"
#include "topologies/tree.hpp"

#include <fmt/format.h>

#include <optional>
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

/// NVLink connections between the 8 GPUs of a DGX-1 (V100), as `nvidia-smi topo -m` reports them there:
/// 0 for none, else the number of links. Two fully linked quads (0-3, 4-7), and GPU i linked to i + 4.
constexpr int kCubeMeshLinks[8][8] = {
    {0, 1, 1, 2, 2, 0, 0, 0}, {1, 0, 2, 1, 0, 2, 0, 0}, {1, 2, 0, 2, 0, 0, 1, 0}, {2, 1, 2, 0, 0, 0, 0, 1},
    {2, 0, 0, 0, 0, 1, 1, 2}, {0, 2, 0, 0, 1, 0, 2, 1}, {0, 0, 1, 0, 1, 2, 0, 2}, {0, 0, 0, 1, 2, 1, 2, 0},
};

/// The links inside one node (class intra_node), as its type says. Returns the node's switch, if it has one.
std::optional<topology::NodeId> join_node(topology::TopologyGraph& graph, const std::vector<topology::NodeId>& devices,
                                          scenario::IntraNode intra, const scenario::LinkSpec& link, std::size_t machine) {
  switch (intra) {
    case scenario::IntraNode::AllToAll:
      for (std::size_t a = 0; a < devices.size(); ++a) {
        for (std::size_t b = a + 1; b < devices.size(); ++b) {
          graph.add_link(devices[a], devices[b], link.bandwidth, link.latency, "intra_node");
        }
      }
      return std::nullopt;
    case scenario::IntraNode::Switch: {
      const topology::NodeId hub = graph.add_switch(fmt::format("node-{}-nvswitch", machine));
      for (const topology::NodeId device : devices) graph.add_link(device, hub, link.bandwidth, link.latency, "intra_node");
      return hub;
    }
    case scenario::IntraNode::CubeMesh:
      if (devices.size() > 8) throw std::invalid_argument("a cube-mesh node holds at most 8 devices");
      for (std::size_t a = 0; a < devices.size(); ++a) {
        for (std::size_t b = a + 1; b < devices.size(); ++b) {
          if (const int links = kCubeMeshLinks[a][b]; links > 0) {
            graph.add_link(devices[a], devices[b], link.bandwidth * static_cast<double>(links), link.latency, "intra_node");
          }
        }
      }
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

topology::TopologyGraph build_hierarchical(const scenario::Scenario& s) {
  topology::TopologyGraph graph;
  // Devices first, node by node, so that ranks follow nodes; each node's intra-node link class with it.
  std::vector<std::vector<topology::NodeId>> machines;
  std::vector<scenario::LinkSpec> intra_links;
  std::vector<scenario::IntraNode> intra;
  int placed = 0;
  for (const scenario::NodeGroup& group : s.cluster.nodes) {
    for (int n = 0; n < group.count && placed < s.cluster.workers; ++n) {
      const int machine = static_cast<int>(machines.size());
      std::vector<topology::NodeId>& devices = machines.emplace_back();
      for (int d = 0; d < group.devices && placed < s.cluster.workers; ++d, ++placed) {
        devices.push_back(graph.add_worker(fmt::format("node-{}-dev-{}", machine, d), machine));
      }
      intra_links.push_back(group.intra_link);
      intra.push_back(group.intra);
    }
  }
  if (placed < s.cluster.workers) {
    throw std::invalid_argument(
        fmt::format("{} workers need one device each, but the nodes hold only {}", s.cluster.workers, placed));
  }
  std::vector<std::optional<topology::NodeId>> hubs;
  for (std::size_t m = 0; m < machines.size(); ++m) hubs.push_back(join_node(graph, machines[m], intra[m], intra_links[m], m));

  std::vector<topology::NodeId> endpoints;
  if (s.topology.nic_per_device) {
    for (std::size_t m = 0; m < machines.size(); ++m) {
      for (std::size_t d = 0; d < machines[m].size(); ++d) {
        if (!hubs[m]) {
          endpoints.push_back(machines[m][d]);
          continue;
        }
        // Behind a node switch each device reaches its NIC over a link of its own (at the fabric's rate), so
        // that the way between two devices of the node through the fabric is longer than through the switch.
        const topology::NodeId nic = graph.add_switch(fmt::format("node-{}-dev-{}-nic", m, d));
        graph.add_link(machines[m][d], nic, s.topology.link.bandwidth, s.topology.link.latency, "nic");
        endpoints.push_back(nic);
      }
    }
  } else {
    for (std::size_t m = 0; m < machines.size(); ++m) {
      // A node with a switch reaches the fabric through it: a second path between its devices through a NIC
      // would compete with the switch.
      if (hubs[m]) {
        endpoints.push_back(*hubs[m]);
        continue;
      }
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
