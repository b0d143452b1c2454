#include "topologies/hierarchical.hpp"

#include "topologies/k_ary_fat_tree.hpp"
#include "topologies/rail_fabric.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace dtsim::topologies {
namespace {

/// Fabrics the NICs can form: their own builders, with this section's `link` (the NIC link), `arity`,
/// `oversubscription` and `server_link`. A torus needs dimensions of its own.
const std::vector<core::Choice> kFabrics{{"ring", "NICs in a ring"},
                                         {"tree", "k-ary tree of switches"},
                                         {"fat_tree", "leaf-spine fat tree"},
                                         {"k_ary_fat_tree", "three-tier k-ary fat tree (edge, aggregation, core)"},
                                         {"rail", "rail-optimized: the i-th NIC of every node on rail switch i, rails joined by spines"},
                                         {"parameter_server", "one switch, with the servers behind it"},
                                         {"mesh", "every NIC linked to every other"},
                                         {"torus", "torus of NICs", true}};
/// Fabrics with switches, where a NIC per device cannot link the devices of a node to each other.
const std::vector<std::string> kSwitchedFabrics{"tree", "fat_tree", "k_ary_fat_tree", "parameter_server", "rail"};

/// Whether `fabric` builds the `oversubscription` declared: the rail fabric, and the topologies that declare
/// the key.
bool oversubscribes(const std::string& fabric, const TopologyContext& c) {
  if (fabric == "rail") return true;
  if (c.registry == nullptr || !c.registry->contains(fabric)) return false;
  const auto& parameters = c.registry->find(fabric).factory.parameters;
  return std::any_of(parameters.begin(), parameters.end(),
                     [](const core::SchemaNode& p) { return p.key == "oversubscription"; });
}

/// The `fabric` topology over the endpoints, the i-th a port of `port_nics[i]` NICs.
topology::TopologyGraph build_fabric(const core::View& t, const TopologyContext& c, const std::vector<int>& port_nics) {
  const std::string fabric = t.filled_text("fabric");
  if (c.registry == nullptr || !c.registry->contains(fabric)) {
    throw std::invalid_argument(fmt::format("a hierarchical topology cannot use a '{}' fabric", fabric));
  }
  TopologyContext over_nics = c;
  over_nics.workers = static_cast<int>(port_nics.size());
  over_nics.port_nics = port_nics;
  over_nics.nodes.clear();
  // Parameter servers, where the architecture has them, take fabric ports after the NICs.
  return build_topology(*c.registry, fabric, t, over_nics);
}

/// NVLink connections between the 8 GPUs of a DGX-1 (V100), as `nvidia-smi topo -m` reports them there:
/// 0 for none, else the number of links. Two fully linked quads (0-3, 4-7), and GPU i linked to i + 4.
constexpr int kCubeMeshLinks[8][8] = {
    {0, 1, 1, 2, 2, 0, 0, 0}, {1, 0, 2, 1, 0, 2, 0, 0}, {1, 2, 0, 2, 0, 0, 1, 0}, {2, 1, 2, 0, 0, 0, 0, 1},
    {2, 0, 0, 0, 0, 1, 1, 2}, {0, 2, 0, 0, 1, 0, 2, 1}, {0, 0, 1, 0, 1, 2, 0, 2}, {0, 0, 0, 1, 2, 1, 2, 0},
};

/// The links inside one node (class intra_node), as its type says. Returns the node's switch, if it has one.
std::optional<topology::NodeId> join_node(topology::TopologyGraph& graph, const std::vector<topology::NodeId>& devices,
                                          IntraNode intra, const LinkSpec& link, std::size_t machine) {
  switch (intra) {
    case IntraNode::AllToAll:
      for (std::size_t a = 0; a < devices.size(); ++a) {
        for (std::size_t b = a + 1; b < devices.size(); ++b) {
          graph.add_link(devices[a], devices[b], link.bandwidth, link.latency, "intra_node");
        }
      }
      return std::nullopt;
    case IntraNode::Switch: {
      const topology::NodeId hub = graph.add_switch(fmt::format("node-{}-nvswitch", machine));
      for (const topology::NodeId device : devices) graph.add_link(device, hub, link.bandwidth, link.latency, "intra_node");
      return hub;
    }
    case IntraNode::CubeMesh:
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

/// The links join_node() makes inside a node of `devices` devices.
std::int64_t intra_node_links(IntraNode intra, int devices) {
  switch (intra) {
    case IntraNode::AllToAll: return std::int64_t{devices} * (devices - 1) / 2;
    case IntraNode::Switch: return devices;
    case IntraNode::CubeMesh: {
      std::int64_t links = 0;
      for (int a = 0; a < std::min(devices, 8); ++a) {
        for (int b = a + 1; b < std::min(devices, 8); ++b) links += kCubeMeshLinks[a][b] > 0 ? 1 : 0;
      }
      return links;
    }
  }
  return 0;
}

/// The graph build_hierarchical() makes, counted as it makes it: the devices node by node with their own links,
/// switches and NICs, then the fabric's switches, servers and links over the NICs.
TopologySize size_of_hierarchical(const core::View& t, const TopologyContext& c) {
  TopologySize size;
  const bool per_device = t.text("nic") == "per_device";
  std::int64_t endpoints = 0;
  std::vector<int> devices_per_node;
  int placed = 0;
  for (const NodeShape& group : c.nodes) {
    for (int n = 0; n < group.count && placed < c.workers; ++n) {
      const int devices = std::min(group.devices, c.workers - placed);
      placed += devices;
      devices_per_node.push_back(devices);
      const bool hub = group.intra == IntraNode::Switch;
      size.nodes += devices + (hub ? 1 : 0);
      size.links += intra_node_links(group.intra, devices);
      // A NIC switch per device behind a node switch, or per node without one; its links as join_node's callers.
      const std::int64_t nics = per_device ? (hub ? devices : 0) : (hub ? 0 : 1);
      size.nodes += nics;
      size.links += per_device ? nics : (hub ? 0 : devices);
      endpoints += per_device ? devices : 1;
    }
  }
  const std::string fabric = t.filled_text("fabric");
  if (fabric == "rail") {
    const std::int64_t arity = t.filled_integer("arity");
    const std::int64_t rails =
        devices_per_node.empty() ? 0 : *std::max_element(devices_per_node.begin(), devices_per_node.end());
    const std::int64_t leaves = rails * ((static_cast<std::int64_t>(devices_per_node.size()) + arity - 1) / arity);
    const std::int64_t spines =
        leaves > 1 ? uplink_count(static_cast<int>(arity), t.filled_number("oversubscription")) : 0;
    size.nodes += leaves + spines;
    size.links += endpoints + leaves * spines;
    return size;
  }
  // A fabric the hierarchy does not build is refused by its check; its own size would read keys absent here.
  const bool built =
      std::any_of(kFabrics.begin(), kFabrics.end(), [&](const core::Choice& f) { return f.name == fabric && !f.planned; });
  if (c.registry == nullptr || !built || !c.registry->contains(fabric)) return size;
  TopologyContext over_nics = c;
  over_nics.workers = static_cast<int>(endpoints);
  over_nics.nodes.clear();
  // The fabric's hosts are the NICs, already counted; its switches, servers and links join them.
  const TopologySize joined = topology_size(*c.registry, fabric, t, over_nics);
  size.nodes += joined.nodes - endpoints;
  size.links += joined.links;
  return size;
}

/// The devices of the nodes, node by node, and each node's intra-node link class and NIC count.
struct HierarchicalNodes {
  std::vector<std::vector<topology::NodeId>> machines;
  std::vector<LinkSpec> intra_links;
  std::vector<IntraNode> intra;
  std::vector<int> nics;
};

/// Adds a device per worker, node by node, so that ranks follow nodes.
HierarchicalNodes add_hierarchical_devices(topology::TopologyGraph& graph, const TopologyContext& c) {
  HierarchicalNodes placement;
  int placed = 0;
  for (const NodeShape& group : c.nodes) {
    for (int n = 0; n < group.count && placed < c.workers; ++n) {
      const int machine = static_cast<int>(placement.machines.size());
      std::vector<topology::NodeId>& devices = placement.machines.emplace_back();
      for (int d = 0; d < group.devices && placed < c.workers; ++d, ++placed) {
        devices.push_back(graph.add_worker(fmt::format("node-{}-dev-{}", machine, d), machine));
      }
      placement.intra_links.push_back(group.intra_link);
      placement.intra.push_back(group.intra);
      placement.nics.push_back(group.nics);
    }
  }
  if (placed < c.workers) {
    throw std::invalid_argument(
        fmt::format("{} workers need one device each, but the nodes hold only {}", c.workers, placed));
  }
  return placement;
}

/// The fabric's ports in rank order, and per port how many NICs it stands for: one per device, or all of a
/// node's on its one port.
struct HierarchicalPorts {
  std::vector<topology::NodeId> endpoints;
  std::vector<int> port_nics;
};

/// A port per device: the device itself, or behind a node switch a NIC of its own.
HierarchicalPorts hierarchical_ports_per_device(topology::TopologyGraph& graph, const HierarchicalNodes& placement,
                                                const std::vector<std::optional<topology::NodeId>>& hubs,
                                                const LinkSpec& nic_link) {
  HierarchicalPorts ports;
  const std::vector<std::vector<topology::NodeId>>& machines = placement.machines;
  for (std::size_t m = 0; m < machines.size(); ++m) {
    for (std::size_t d = 0; d < machines[m].size(); ++d) {
      ports.port_nics.push_back(1);
      if (!hubs[m]) {
        ports.endpoints.push_back(machines[m][d]);
        continue;
      }
      // Behind a node switch each device reaches its NIC over a link of its own (at the fabric's rate), so
      // that the way between two devices of the node through the fabric is longer than through the switch.
      const topology::NodeId nic = graph.add_switch(fmt::format("node-{}-dev-{}-nic", m, d));
      graph.add_link(machines[m][d], nic, nic_link.bandwidth, nic_link.latency, "nic");
      ports.endpoints.push_back(nic);
    }
  }
  return ports;
}

/// A port per node: its switch, or a NIC that all its devices link to.
HierarchicalPorts hierarchical_ports_per_node(topology::TopologyGraph& graph, const HierarchicalNodes& placement,
                                              const std::vector<std::optional<topology::NodeId>>& hubs) {
  HierarchicalPorts ports;
  const std::vector<std::vector<topology::NodeId>>& machines = placement.machines;
  for (std::size_t m = 0; m < machines.size(); ++m) {
    ports.port_nics.push_back(placement.nics[m]);
    // A node with a switch reaches the fabric through it: a second path between its devices through a NIC
    // would compete with the switch.
    if (hubs[m]) {
      ports.endpoints.push_back(*hubs[m]);
      continue;
    }
    const topology::NodeId nic = graph.add_switch(fmt::format("node-{}-nic", m));
    for (const topology::NodeId device : machines[m]) {
      graph.add_link(device, nic, placement.intra_links[m].bandwidth, placement.intra_links[m].latency, "nic");
    }
    ports.endpoints.push_back(nic);
  }
  return ports;
}

/// Copies `fabric` into `graph`: its hosts are the ports, its switches and servers are added as "fabric-<name>",
/// and a link at a port of several NICs is as many times as wide.
void join_hierarchical_fabric(topology::TopologyGraph& graph, const topology::TopologyGraph& fabric,
                              const HierarchicalPorts& ports) {
  const std::vector<topology::NodeId>& endpoints = ports.endpoints;
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
  // The fabric's hosts are its ports: graph statistics find its leaves by them, not by the devices behind.
  for (const topology::NodeId endpoint : endpoints) graph.mark_port(endpoint);
  for (const topology::NodeId server : fabric.servers()) graph.mark_port(joined[server]);
  std::vector<int> width(fabric.node_count(), 1);
  for (std::size_t rank = 0; rank < fabric.workers().size(); ++rank) {
    width[fabric.workers()[rank]] = ports.port_nics[rank];
  }
  for (std::size_t id = 0; id < fabric.link_count(); ++id) {
    const topology::LinkEnds& ends = fabric.link_ends(id);
    const int wide = std::max(width[ends.a], width[ends.b]);
    graph.add_link(joined[ends.a], joined[ends.b], fabric.link(id).bandwidth * static_cast<double>(wide),
                   fabric.link(id).latency, "fabric/" + fabric.link(id).link_class);
  }
}

}  // namespace

topology::TopologyGraph build_hierarchical(const core::View& t, const TopologyContext& c) {
  topology::TopologyGraph graph;
  const LinkSpec nic_link = topology_link(t, c);
  // Devices first, node by node, so that ranks follow nodes; each node's intra-node link class with it.
  const HierarchicalNodes placement = add_hierarchical_devices(graph, c);
  std::vector<std::optional<topology::NodeId>> hubs;
  for (std::size_t m = 0; m < placement.machines.size(); ++m) {
    hubs.push_back(join_node(graph, placement.machines[m], placement.intra[m], placement.intra_links[m], m));
  }
  const HierarchicalPorts ports = t.text("nic") == "per_device"
                                      ? hierarchical_ports_per_device(graph, placement, hubs, nic_link)
                                      : hierarchical_ports_per_node(graph, placement, hubs);
  std::vector<std::size_t> devices_per_node;
  for (const auto& devices : placement.machines) devices_per_node.push_back(devices.size());
  const topology::TopologyGraph fabric =
      t.filled_text("fabric") == "rail"
          ? build_rail_fabric(devices_per_node, static_cast<int>(t.filled_integer("arity")),
                              t.filled_number("oversubscription"), nic_link)
          : build_fabric(t, c, ports.port_nics);
  join_hierarchical_fabric(graph, fabric, ports);
  return graph;
}

void register_hierarchical(TopologyRegistry& registry) {
  registry.add(
      "hierarchical", "multi-device nodes (`cluster.nodes`) joined by a fabric",
      {.parameters = {server_link_parameter(), arity_parameter(), oversubscription_parameter(), radix_parameter(),
                      core::choice_of("fabric", "topology", "how the NICs are connected, with `link` as the NIC link",
                                      kFabrics)
                          .fallback("fat_tree"),
                      core::choice_of("nic", "nic placement", "network interfaces into the fabric",
                                      {{"per_node", "one NIC per node, shared by its devices"},
                                       {"per_device", "one NIC per device (needs a switched fabric: tree, fat_tree, "
                                                      "k_ary_fat_tree, rail, parameter_server)"}})
                          .fallback("per_node")},
       .make = build_hierarchical,
       .check = [](const core::View& t, const TopologyContext& c, core::DiagnosticSink& sink) {
         if (!c.nodes_declared) {
           sink.error(t.where("kind"), "topology.kind",
                      "a hierarchical topology needs multi-device nodes: declare cluster.node_types and cluster.nodes",
                      "node_types: {dgx: {devices: 8, intra_link: {bandwidth: 300GBps, latency: 1us}}}, nodes: [{type: "
                      "dgx, count: 4}]");
         }
         const std::string fabric = t.filled_text("fabric");
         if (fabric == "k_ary_fat_tree") {
           // The fabric's ports: a NIC per device, or per node the workers fill.
           int ports = 0;
           int placed = 0;
           for (const NodeShape& group : c.nodes) {
             for (int n = 0; n < group.count && placed < c.workers; ++n, ++ports) placed += group.devices;
           }
           if (t.text("nic") == "per_device") ports = c.workers;
           if (c.attach_servers) ports += c.servers;
           const std::int64_t k = t.filled_integer("k");
           if (k % 2 != 0 || static_cast<std::int64_t>(ports) > k * k * k / 4) {
             sink.error(t.where("k"), "topology.k",
                        fmt::format("a k-ary fat tree needs an even k with k^3/4 ports for the {} NICs{}, got k = {}",
                                    ports, c.attach_servers ? " and servers" : "", k),
                        fmt::format("k: {} holds them", smallest_radix(ports, k)));
           }
         }
         // 1, the default, asks nothing of a fabric.
         if (t.filled_number("oversubscription") > 1.0 && !oversubscribes(fabric, c)) {
           sink.error(t.where("oversubscription"), "topology.oversubscription",
                      fmt::format("a {} fabric does not read oversubscription: the {} to 1 declared would not be built",
                                  fabric, t.filled_number("oversubscription")),
                      "use fabric: fat_tree, k_ary_fat_tree or rail, or remove oversubscription");
         }
         if (fabric == "rail" && c.attach_servers) {
           sink.error(t.where("fabric"), "topology.fabric",
                      "a rail-optimized fabric has a rail per device of a node, and no port for parameter servers",
                      "use fabric: k_ary_fat_tree or fat_tree, whose host ports take the servers after the NICs");
         }
         if (fabric == "rail" && t.text("nic") != "per_device") {
           sink.error(t.where("fabric"), "topology.fabric",
                      "a rail-optimized fabric puts the i-th NIC of every node on rail i: it needs a NIC per device",
                      "add nic: per_device");
         }
         if (t.text("nic") == "per_device" &&
             std::find(kSwitchedFabrics.begin(), kSwitchedFabrics.end(), fabric) == kSwitchedFabrics.end()) {
           sink.error(t.where("nic"), "topology.nic",
                      fmt::format("per-device NICs on a {} fabric would link devices of one node both inside the node "
                                  "and through the fabric, and their traffic could leave the node",
                                  fabric),
                      "use fabric: fat_tree, k_ary_fat_tree, rail, tree or parameter_server, or nic: per_node");
         }
       },
       .size = size_of_hierarchical,
       .example = "{kind: hierarchical, fabric: fat_tree, arity: 4, nic: per_device}",
       .example_cluster = "{workers: 16, device: {name: v100}, nodes: [{type: dgx1, count: 2}]}",
       .places_nodes = true,
       .places_servers = true});
}

}  // namespace dtsim::topologies
