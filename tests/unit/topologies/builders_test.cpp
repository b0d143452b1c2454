#include "sim/scenario/config_loader.hpp"
#include "sim/scenario/node_catalog.hpp"
#include "sim/topology/graph_statistics.hpp"
#include "sim/topology/routing.hpp"
#include "tests/support/scenario_format.hpp"
#include "topologies/custom.hpp"
#include "topologies/fat_tree.hpp"
#include "topologies/hierarchical.hpp"
#include "topologies/k_ary_fat_tree.hpp"
#include "topologies/mesh.hpp"
#include "topologies/parameter_server.hpp"
#include "topologies/random_regular.hpp"
#include "topologies/ring.hpp"
#include "topologies/torus.hpp"
#include "topologies/tree.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace dtsim::topologies {
namespace {

const LinkSpec kLink{core::BytesPerSecond(1.25e9), core::Seconds(5e-6)};

/// A `topology` section written as YAML (a scenario file's, before defaults are filled in).
core::ConfigNode section(const std::string& yaml) {
  core::DiagnosticSink sink;
  core::ConfigNode node = scenario::load_config_text(dtsim::test::scenario_format().schema(), yaml, "section.yaml", sink);
  EXPECT_TRUE(sink.empty());
  return node;
}

const std::string kLinkYaml = "link: {bandwidth: 10Gbps, latency: 5us}";

/// The hierarchical topology's graph over `nodes`, built through the registry as a run builds it.
topology::TopologyGraph build_hierarchical_over(int workers, std::vector<NodeShape> nodes, const std::string& keys) {
  TopologyRegistry registry("topology");
  register_builtin_topologies(registry);
  const core::ConfigNode t = section("{kind: hierarchical, " + kLinkYaml + ", " + keys + "}");
  TopologyContext context;
  context.workers = workers;
  context.nodes = std::move(nodes);
  return build_topology(registry, "hierarchical", core::View(&t, "topology"), context);
}

topology::TopologyGraph hierarchical(int workers, const std::string& fabric, bool nic_per_device) {
  const LinkSpec intra{core::BytesPerSecond(300e9), core::Seconds(1e-6)};
  return build_hierarchical_over(workers, {NodeShape{2, 4, intra, IntraNode::AllToAll}, NodeShape{1, 2, intra, IntraNode::AllToAll}},
                                 "fabric: " + fabric + (nic_per_device ? ", nic: per_device" : ""));
}

// Rail-optimized: 8 nodes of 8 devices behind an NVSwitch, NIC d of every node on rail d, 4 nodes per rail
// leaf (arity), every leaf linked to ceil(4 / o) spines.
class RailFabric : public ::testing::TestWithParam<double> {};

TEST_P(RailFabric, MatchesItsFormulas) {
  const double oversubscription = GetParam();
  const int spines = static_cast<int>(std::ceil(4 / oversubscription));
  const LinkSpec intra{core::BytesPerSecond(450e9), core::Seconds(1e-6)};
  const auto graph = build_hierarchical_over(
      64, {NodeShape{8, 8, intra, IntraNode::Switch}},
      fmt::format("fabric: rail, nic: per_device, arity: 4, oversubscription: {}", oversubscription));
  const auto stats = topology::compute_statistics(graph);
  EXPECT_EQ(stats.switches, static_cast<std::size_t>(8 + 64 + 8 * 2 + spines));  // NVSwitches, NICs, rail leaves, spines
  EXPECT_EQ(stats.links, static_cast<std::size_t>(64 + 64 + 64 + 16 * spines));
  EXPECT_EQ(stats.diameter_hops, 6);
  // From a device: 7 in its node (2 hops), its rail's 3 other nodes under its leaf (4), the 53 others (6).
  EXPECT_NEAR(stats.average_hops, (7 * 2 + 3 * 4 + 53 * 6) / 63.0, 1e-12);
  // Nodes 0-3 against 4-7: the first leaf group's spine links, workers / 2 x B / o.
  EXPECT_NEAR(stats.bisection_bandwidth.value(), 32 * 1.25e9 / oversubscription, 1e-3);
}

INSTANTIATE_TEST_SUITE_P(Oversubscription, RailFabric, ::testing::Values(1.0, 2.0, 4.0),
                         [](const auto& param_info) { return "o" + std::to_string(static_cast<int>(param_info.param)); });

// A rail leaf of 4 nodes cannot have 4/3 spines: 2 spines, each uplink 4 / (3 x 2) of a link, so that the leaf's
// ports over its uplinks are 3 exactly, and the bisection workers / 2 x B / 3.
TEST(RailFabricBuilder, NarrowsItsUplinksWhereSpinesCannotGiveTheRatio) {
  const LinkSpec intra{core::BytesPerSecond(450e9), core::Seconds(1e-6)};
  const auto graph = build_hierarchical_over(64, {NodeShape{8, 8, intra, IntraNode::Switch}},
                                             "fabric: rail, nic: per_device, arity: 4, oversubscription: 3");
  const auto stats = topology::compute_statistics(graph);
  EXPECT_EQ(stats.switches, static_cast<std::size_t>(8 + 64 + 8 * 2 + 2));
  EXPECT_NEAR(stats.leaf_oversubscription, 3.0, 1e-12);
  EXPECT_NEAR(stats.bisection_bandwidth.value(), 32 * 1.25e9 / 3, 32 * 1.25e9 * 1e-9);
}

// A node's one port carries its NICs (dgx_h100: 8 x `link`), and the fabric's uplinks are sized from them: a
// fat tree of two nodes a leaf has the declared ratio, not 8 times it. Nodes 0-3 (leaves 0 and 1) against 4-7:
// the two leaves' uplinks, 2 nodes x 8 NICs x B / o each.
class PortOfManyNics : public ::testing::TestWithParam<double> {};

TEST_P(PortOfManyNics, BuildsTheDeclaredOversubscription) {
  const double oversubscription = GetParam();
  const scenario::CatalogNode dgx = *scenario::find_builtin_node("dgx_h100");
  const auto graph = build_hierarchical_over(
      64, {NodeShape{8, dgx.devices, dgx.intra_link, dgx.intra, dgx.nics}},
      fmt::format("fabric: fat_tree, nic: per_node, arity: 2, oversubscription: {}", oversubscription));
  const int spines = static_cast<int>(std::ceil(2 / oversubscription));
  const auto stats = topology::compute_statistics(graph);
  EXPECT_EQ(stats.switches, static_cast<std::size_t>(8 + 4 + spines));  // NVSwitches (the ports), leaves, spines
  EXPECT_DOUBLE_EQ(stats.leaf_oversubscription, oversubscription);
  EXPECT_DOUBLE_EQ(stats.bisection_bandwidth.value(), 2 * 2 * 8 * 1.25e9 / oversubscription);
  double uplinks = 0.0;
  for (std::size_t id = 0; id < graph.link_count(); ++id) {
    if (graph.node(graph.link_ends(id).a).name == "fabric-leaf-0" && graph.link(id).link_class == "fabric/spine") {
      uplinks += graph.link(id).bandwidth.value();
    }
  }
  EXPECT_DOUBLE_EQ(uplinks, 2 * 8 * 1.25e9 / oversubscription);
}

INSTANTIATE_TEST_SUITE_P(Oversubscription, PortOfManyNics, ::testing::Values(1.0, 2.0, 4.0),
                         [](const auto& param_info) { return "o" + std::to_string(static_cast<int>(param_info.param)); });

// Nodes of 8 NICs under one leaf, of 4 under the other: each leaf's uplinks carry what its own ports do. A k-ary
// fat tree over per-node ports sizes its edge uplinks the same way.
TEST(HierarchicalBuilder, EachLeafsUplinksFollowItsOwnPorts) {
  const LinkSpec intra{core::BytesPerSecond(300e9), core::Seconds(1e-6)};
  const auto mixed = build_hierarchical_over(
      32, {NodeShape{2, 8, intra, IntraNode::Switch, 8}, NodeShape{2, 8, intra, IntraNode::Switch, 4}},
      "fabric: fat_tree, arity: 2");
  const auto stats = topology::compute_statistics(mixed);
  EXPECT_DOUBLE_EQ(stats.leaf_oversubscription, 1.0);
  // Nodes 0-1 against 2-3: what the second leaf's 8 NICs take in, over its two spines.
  EXPECT_DOUBLE_EQ(stats.bisection_bandwidth.value(), 8 * 1.25e9);
  const auto pods = build_hierarchical_over(64, {NodeShape{8, 8, intra, IntraNode::Switch, 8}},
                                            "fabric: k_ary_fat_tree, k: 4, oversubscription: 2");
  EXPECT_DOUBLE_EQ(topology::compute_statistics(pods).leaf_oversubscription, 2.0);
}

TEST(HierarchicalBuilder, NodesAllToAllInsideAndANicPerNodeOnTheFabric) {
  // Nodes of 4, 4 and 2 devices; 10 workers fill all three.
  const auto graph = (hierarchical(10, "ring", false));
  const auto stats = topology::compute_statistics(graph);
  EXPECT_EQ(stats.workers, 10U);
  EXPECT_EQ(stats.switches, 3U);                         // one NIC per node
  EXPECT_EQ(stats.links, 6U + 6U + 1U + 10U + 3U);       // intra pairs, device-NIC links, the NIC ring
  EXPECT_EQ(std::vector<int>(graph.worker_machines().begin(), graph.worker_machines().end()),
            (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1, 2, 2}));
  const topology::RoutingTable routes(graph);
  EXPECT_EQ(routes.route(graph.workers()[0], graph.workers()[3]).size(), 1U);  // inside a node: one intra link
  EXPECT_EQ(routes.route(graph.workers()[0], graph.workers()[4]).size(), 3U);  // device, NIC, NIC, device
  EXPECT_EQ(graph.link(routes.route(graph.workers()[0], graph.workers()[3])[0].link).bandwidth.value(), 300e9);
}

TEST(HierarchicalBuilder, PerDeviceNicsKeepTrafficInsideANodeOnItsOwnLinks) {
  const auto graph = (hierarchical(8, "fat_tree", true));  // the first two nodes only
  const topology::RoutingTable routes(graph);
  for (std::size_t a = 0; a < 8; ++a) {
    for (std::size_t b = 0; b < 8; ++b) {
      if (a == b) continue;
      const auto& route = routes.route(graph.workers()[a], graph.workers()[b]);
      const bool same_node = a / 4 == b / 4;
      EXPECT_EQ(route.size() == 1, same_node) << a << " -> " << b;
      if (same_node) {
        EXPECT_EQ(graph.link(route[0].link).bandwidth.value(), 300e9);
      }
    }
  }
  EXPECT_THROW((hierarchical(11, "ring", false)), std::invalid_argument);
}

topology::TopologyGraph one_node(const scenario::CatalogNode& node, int count = 1, const std::string& keys = "fabric: ring") {
  return build_hierarchical_over(node.devices * count, {NodeShape{count, node.devices, node.intra_link, node.intra}}, keys);
}

// NVSwitch nodes: every device has one link to the node's switch, so any two devices are two hops apart and
// a device's traffic to all the others shares its one link.
TEST(HierarchicalBuilder, SwitchNodesLinkEachDeviceToOneSwitch) {
  const scenario::CatalogNode dgx = *scenario::find_builtin_node("dgx_a100");
  const auto graph = one_node(dgx);
  const topology::RoutingTable routes(graph);
  for (std::size_t a = 0; a < 8; ++a) {
    for (std::size_t b = a + 1; b < 8; ++b) {
      const auto& route = routes.route(graph.workers()[a], graph.workers()[b]);
      ASSERT_EQ(route.size(), 2U);
      EXPECT_EQ(graph.link(route[0].link).bandwidth.value(), 235e9);
      EXPECT_EQ(graph.link(route[0].link).link_class, "intra_node");
    }
  }
  // Eight links to the NVSwitch, which is also the node's way onto the fabric (a ring of one node: none).
  EXPECT_EQ(topology::compute_statistics(graph).links, 8U);
  // With a NIC per device, a device's NIC hangs off it: traffic between devices of one node still takes the
  // switch, two hops, against four through the fabric.
  const auto rails = one_node(dgx, 2, "nic: per_device, fabric: fat_tree, arity: 4");
  const topology::RoutingTable rail_routes(rails);
  for (std::size_t b = 1; b < 8; ++b) {
    const auto& route = rail_routes.route(rails.workers()[0], rails.workers()[b]);
    ASSERT_EQ(route.size(), 2U);
    EXPECT_EQ(rails.link(route[0].link).link_class, "intra_node");
  }
  const auto& across = rail_routes.route(rails.workers()[0], rails.workers()[8]);
  EXPECT_EQ(rails.link(across[0].link).link_class, "nic");
  EXPECT_EQ(rails.link(across[0].link).bandwidth.value(), kLink.bandwidth.value());
  EXPECT_EQ(scenario::find_builtin_node("dgx2")->devices, 16);
}

// DGX-1: 6 NVLinks per V100 to four neighbours, two of them doubled; GPUs of different quads not paired
// (0 and 5, say) are two hops apart.
TEST(HierarchicalBuilder, CubeMeshNodesFollowTheDgx1Wiring) {
  const scenario::CatalogNode dgx1 = *scenario::find_builtin_node("dgx1");
  const auto graph = one_node(dgx1);
  const topology::RoutingTable routes(graph);
  for (std::size_t a = 0; a < 8; ++a) {
    double nvlink = 0.0;
    int neighbours = 0;
    for (std::size_t b = 0; b < 8; ++b) {
      if (a == b) continue;
      const auto& route = routes.route(graph.workers()[a], graph.workers()[b]);
      if (route.size() == 1) {
        nvlink += graph.link(route[0].link).bandwidth.value();
        ++neighbours;
      }
    }
    EXPECT_EQ(neighbours, 4) << "GPU " << a;
    EXPECT_DOUBLE_EQ(nvlink, 6 * 25e9) << "GPU " << a;
  }
  EXPECT_EQ(routes.route(graph.workers()[0], graph.workers()[5]).size(), 2U);
  EXPECT_EQ(routes.route(graph.workers()[0], graph.workers()[4]).size(), 1U);
}

TEST(RingBuilder, AUnidirectionalRingGoesRoundOneWay) {
  const auto graph = build_ring(6, kLink, false);
  EXPECT_EQ(graph.link_count(), 6U);
  EXPECT_EQ(graph.link(0).name, "worker-0->-worker-1");
  const topology::RoutingTable routes(graph);
  const auto& forward = routes.route(graph.workers()[0], graph.workers()[1]);
  ASSERT_EQ(forward.size(), 1U);
  EXPECT_TRUE(forward[0].forward);
  // Back to the previous worker is the long way round: five hops, every one forward.
  const auto& back = routes.route(graph.workers()[1], graph.workers()[0]);
  ASSERT_EQ(back.size(), 5U);
  for (const auto& hop : back) EXPECT_TRUE(hop.forward);
  const auto stats = topology::compute_statistics(graph);
  EXPECT_TRUE(stats.connected);
  EXPECT_EQ(stats.diameter_hops, 5);
  EXPECT_DOUBLE_EQ(stats.average_hops, 3.0);  // 1 + 2 + 3 + 4 + 5 over 5
  // From ranks 0-2 to ranks 3-5 traffic can cross links 2-3 and 5-0 on a bidirectional ring, only 2->3
  // on this one.
  EXPECT_DOUBLE_EQ(stats.bisection_bandwidth.value(), kLink.bandwidth.value());
  EXPECT_DOUBLE_EQ(topology::compute_statistics(build_ring(6, kLink)).bisection_bandwidth.value(),
                   2 * kLink.bandwidth.value());
}

TEST(RingBuilder, EveryWorkerHasTwoNeighbours) {
  const auto graph = build_ring(8, kLink);
  EXPECT_EQ(graph.node_count(), 8U);
  EXPECT_EQ(graph.link_count(), 8U);
  for (const auto worker : graph.workers()) EXPECT_EQ(boost::degree(worker, graph.graph()), 2U);
  EXPECT_EQ(graph.link(0).name, "worker-0--worker-1");
  EXPECT_EQ(graph.link(7).name, "worker-7--worker-0");
  const topology::RoutingTable routes(graph);
  EXPECT_EQ(routes.route(graph.workers()[0], graph.workers()[4]).size(), 4U);  // the diameter
  EXPECT_EQ(routes.route(graph.workers()[1], graph.workers()[7]).size(), 2U);
}

TEST(RingBuilder, TwoWorkersShareOneLinkAndOneHasNone) {
  EXPECT_EQ(build_ring(2, kLink).link_count(), 1U);
  EXPECT_EQ(build_ring(1, kLink).link_count(), 0U);
}

TEST(ParameterServerBuilder, StarThroughOneSwitch) {
  const LinkSpec server_link{core::BytesPerSecond(1e10), core::Seconds(1e-6)};
  const auto graph = build_parameter_server(4, 1, kLink, server_link);
  EXPECT_EQ(graph.node_count(), 6U);  // 4 workers, 1 server, 1 switch
  EXPECT_EQ(graph.link_count(), 5U);
  ASSERT_EQ(graph.servers().size(), 1U);
  EXPECT_EQ(graph.node(graph.servers()[0]).name, "server-0");
  const topology::RoutingTable routes(graph);
  const auto& route = routes.route(graph.workers()[2], graph.servers()[0]);
  ASSERT_EQ(route.size(), 2U);
  EXPECT_DOUBLE_EQ(graph.link(route[0].link).bandwidth.value(), 1.25e9);
  EXPECT_DOUBLE_EQ(graph.link(route[1].link).bandwidth.value(), 1e10);
}

/// How many links of each class `graph` has.
std::map<std::string, int> link_classes(const topology::TopologyGraph& graph) {
  std::map<std::string, int> classes;
  for (std::size_t id = 0; id < graph.link_count(); ++id) ++classes[graph.link(id).link_class];
  return classes;
}

/// The names of `graph`'s switches, in the order they were added.
std::vector<std::string> switch_names(const topology::TopologyGraph& graph) {
  std::vector<std::string> switches;
  for (topology::NodeId node = 0; node < graph.node_count(); ++node) {
    if (graph.node(node).kind == topology::NodeKind::Switch) switches.push_back(graph.node(node).name);
  }
  return switches;
}

/// The sites topology of `sites` (a YAML list) for `workers` workers, 10 Gb/s and 40 ms apart, with its size
/// counted without building it.
std::pair<topology::TopologyGraph, TopologySize> sites_graph(const std::string& sites, int workers) {
  TopologyRegistry registry("topology");
  register_builtin_topologies(registry);
  const core::ConfigNode t =
      section("{kind: sites, " + kLinkYaml + ", sites: " + sites + ", wan: {bandwidth: 10Gbps, latency: 40ms}}");
  TopologyContext context;
  context.workers = workers;
  return {build_topology(registry, "sites", core::View(&t, "topology"), context),
          topology_size(registry, "sites", core::View(&t, "topology"), context)};
}

TEST(SitesBuilder, ASiteOfNodesPutsEachNodesDevicesOnItsOwnSwitch) {
  // Site a: two nodes of 4 devices; site b: 2 workers each on the site's switch.
  const topology::TopologyGraph graph =
      sites_graph(
          "[{name: a, workers: 8, per_node: 4, node_link: {bandwidth: 2400Gbps, latency: 1us}}, "
          "{name: b, workers: 2, per_node: 1}]",
          10)
          .first;
  // A node is a machine named by its first rank; a worker alone is its own.
  const std::vector<int> machines(graph.worker_machines().begin(), graph.worker_machines().end());
  EXPECT_EQ(machines, (std::vector<int>{0, 0, 0, 0, 4, 4, 4, 4, 8, 9}));
  const std::map<std::string, int> classes = link_classes(graph);
  EXPECT_EQ(classes, (std::map<std::string, int>{{"node", 8}, {"site", 4}, {"wan", 1}}));
  // Two devices of one node meet at its switch over NVLink's place; across nodes, through the site's switch.
  const topology::RoutingTable routes(graph);
  EXPECT_EQ(routes.route(graph.workers()[0], graph.workers()[3]).size(), 2U);
  EXPECT_EQ(routes.route(graph.workers()[0], graph.workers()[4]).size(), 4U);
  EXPECT_EQ(routes.route(graph.workers()[0], graph.workers()[9]).size(), 4U);  // node, site, wide area, site
  EXPECT_EQ(graph.node(graph.workers()[5]).name, "a.worker-5");
}

TEST(SitesBuilder, ASitesOwnFatTreeReachesTheWideAreaThroughItsSpines) {
  // Site a: 8 workers under leaves of 4 ports, 2:1 oversubscribed (2 spines); site b: 3 workers under one leaf.
  const auto [graph, counted] = sites_graph(
      "[{name: a, workers: 8, per_node: 1, fabric: fat_tree, arity: 4, oversubscription: 2}, "
      "{name: b, workers: 3, per_node: 1, fabric: fat_tree, arity: 4, oversubscription: 1}]",
      11);
  const std::map<std::string, int> classes = link_classes(graph);
  // Each port on its leaf; a's 2 leaves on its 2 spines, which reach a's switch; b's one leaf reaches b's.
  EXPECT_EQ(classes, (std::map<std::string, int>{{"site/leaf", 11}, {"site/spine", 4}, {"border", 3}, {"wan", 1}}));
  const topology::RoutingTable routes(graph);
  const auto hops = [&](std::size_t from, std::size_t to) {
    return routes.route(graph.workers()[from], graph.workers()[to]).size();
  };
  EXPECT_EQ(hops(0, 3), 2U);   // one leaf
  EXPECT_EQ(hops(0, 4), 4U);   // leaf, spine, leaf
  EXPECT_EQ(hops(0, 8), 6U);   // leaf, spine, a's border, the wide area, b's border, b's leaf
  EXPECT_EQ(hops(8, 10), 2U);  // b's one leaf
  EXPECT_EQ(switch_names(graph), (std::vector<std::string>{"a.switch", "a.leaf-0", "a.leaf-1", "a.spine-0", "a.spine-1",
                                                           "b.switch", "b.leaf-0"}));
  // A leaf's 4 ports over its 2 uplinks: each uplink as wide as a port's link, 2:1.
  for (std::size_t id = 0; id < graph.link_count(); ++id) {
    if (graph.link(id).link_class == "site/spine") {
      EXPECT_EQ(graph.link(id).bandwidth.value(), kLink.bandwidth.value());
    }
  }
  EXPECT_GE(counted.nodes, static_cast<std::int64_t>(graph.node_count()));
  EXPECT_GE(counted.links, static_cast<std::int64_t>(graph.link_count()));
}

TEST(SitesBuilder, ASiteOfAnyTopologyIsItsOwnBuildersGraphReachingTheWideAreaFromItsGateways) {
  // a: a ring of 4; b: a 2 x 3 torus; c: a binary tree of 4; d: a dragonfly of 2 groups of 2 routers of 1 host.
  const auto [graph, counted] = sites_graph(
      "[{name: a, workers: 4, per_node: 1, fabric: ring}, "
      "{name: b, workers: 6, per_node: 1, fabric: torus, dimensions: [2, 3]}, "
      "{name: c, workers: 4, per_node: 1, fabric: tree, arity: 2}, "
      "{name: d, workers: 4, per_node: 1, fabric: dragonfly, groups: 2, routers: 2, hosts: 1, global_links: 1}]",
      18);
  const std::map<std::string, int> classes = link_classes(graph);
  // Each fabric's links as its own builder makes them; one border link each: the ring's and the torus's first
  // host, the tree's root, the dragonfly's first router (each of its routers holds a host).
  EXPECT_EQ(classes, (std::map<std::string, int>{{"site/ring", 4},
                                                 {"site/torus/x", 3},
                                                 {"site/torus/y", 6},
                                                 {"site/leaf", 4},
                                                 {"site/uplink", 2},
                                                 {"site/host", 4},
                                                 {"site/local", 2},
                                                 {"site/global", 2},
                                                 {"border", 4},
                                                 {"wan", 6}}));
  const topology::RoutingTable routes(graph);
  const auto hops = [&](std::size_t from, std::size_t to) {
    return routes.route(graph.workers()[from], graph.workers()[to]).size();
  };
  // The site's gateway to its switch, the switches' wide-area link, and down from the other site's switch.
  EXPECT_EQ(hops(0, 2), 2U);    // round the ring, not through the border
  EXPECT_EQ(hops(2, 4), 5U);    // round the ring to a's gateway (rank 0), then to b's gateway (rank 4)
  EXPECT_EQ(hops(1, 5), 5U);    // a's gateway, b's gateway, then one torus hop
  EXPECT_EQ(hops(10, 11), 2U);  // one leaf of c's tree
  EXPECT_EQ(hops(10, 4), 5U);   // up c's tree to its root, then to b's gateway
  EXPECT_EQ(switch_names(graph),
            (std::vector<std::string>{"a.switch", "b.switch", "c.switch", "c.switch-1-0", "c.switch-1-1",
                                      "c.switch-2-0", "d.switch", "d.group-0-router-0", "d.group-0-router-1",
                                      "d.group-1-router-0", "d.group-1-router-1"}));
  EXPECT_GE(counted.nodes, static_cast<std::int64_t>(graph.node_count()));
  EXPECT_GE(counted.links, static_cast<std::int64_t>(graph.link_count()));
}

TEST(SitesBuilder, ARailSitePutsDeviceDOfEveryNodeOnRailDBesideItsNodesSwitch) {
  // Site a: 2 nodes of 4 devices on 4 rails (one leaf each: 2 nodes a leaf), under 2 spines; site b: 2 workers.
  const auto [graph, counted] = sites_graph(
      "[{name: a, workers: 8, per_node: 4, node_link: {bandwidth: 900GBps, latency: 1us}, fabric: rail, arity: 2, "
      "oversubscription: 1}, {name: b, workers: 2, per_node: 1}]",
      10);
  const std::map<std::string, int> classes = link_classes(graph);
  EXPECT_EQ(classes, (std::map<std::string, int>{
                         {"node", 8}, {"site/rail", 8}, {"site/spine", 8}, {"border", 2}, {"site", 2}, {"wan", 1}}));
  const topology::RoutingTable routes(graph);
  const auto hops = [&](std::size_t from, std::size_t to) {
    return routes.route(graph.workers()[from], graph.workers()[to]).size();
  };
  EXPECT_EQ(hops(0, 1), 2U);  // through the node's switch
  EXPECT_EQ(hops(0, 4), 2U);  // device 0 of both nodes: rail 0's leaf
  EXPECT_EQ(hops(0, 5), 4U);  // another device of another node: through a node's switch and a rail, or a spine
  EXPECT_EQ(hops(0, 8), 5U);  // rail 0's leaf, a spine, a's switch, b's switch
  EXPECT_EQ(graph.worker_machines()[5], graph.worker_machines()[4]);  // a node is one machine
  EXPECT_EQ(switch_names(graph), (std::vector<std::string>{"a.switch", "a.node-0", "a.node-1", "a.rail-0-leaf-0",
                                                           "a.rail-1-leaf-0", "a.rail-2-leaf-0", "a.rail-3-leaf-0",
                                                           "a.rail-spine-0", "a.rail-spine-1", "b.switch"}));
  EXPECT_GE(counted.nodes, static_cast<std::int64_t>(graph.node_count()));
  EXPECT_GE(counted.links, static_cast<std::int64_t>(graph.link_count()));
}

TEST(SitesBuilder, ASitesFabricIsAnyTopologyThatPlacesNeitherNodesNorServers) {
  TopologyRegistry registry("topology");
  register_builtin_topologies(registry);
  const core::SchemaNode& sites = registry.find("sites").factory.parameters.front();
  ASSERT_EQ(sites.key, "sites");
  const core::SchemaNode* fabric = sites.children.front().child("fabric");
  ASSERT_NE(fabric, nullptr);
  std::vector<std::string> choices;
  for (const core::Choice& choice : fabric->choices) choices.push_back(choice.name);
  std::vector<std::string> expected{"switch", "rail"};
  for (const std::string& name : registry.registration_order()) {
    const TopologyPlugin& plugin = registry.find(name).factory;
    if (name != "sites" && !plugin.places_nodes && !plugin.places_servers) expected.push_back(name);
  }
  EXPECT_EQ(choices, expected);
  // Every built-in but the hierarchy, the star, a custom graph and sites, after one switch and rails.
  EXPECT_EQ(expected.size(), 10U);
  // A fabric's own key applies when it is chosen.
  const core::SchemaNode* dimensions = sites.children.front().child("dimensions");
  ASSERT_NE(dimensions, nullptr);
  EXPECT_EQ(dimensions->only_when.values, std::vector<std::string>{"torus"});
}

TEST(TreeBuilder, WorkersAreLeavesUnderKarySwitches) {
  const auto graph = build_tree(9, 3, kLink);
  const auto stats = topology::compute_statistics(graph);
  EXPECT_EQ(stats.workers, 9U);
  EXPECT_EQ(stats.switches, 4U);  // three under one root
  EXPECT_EQ(stats.links, 12U);
  for (const auto worker : graph.workers()) EXPECT_EQ(boost::degree(worker, graph.graph()), 1U);
  EXPECT_EQ(stats.diameter_hops, 4);  // up two, down two
  const topology::RoutingTable routes(graph);
  EXPECT_EQ(routes.route(graph.workers()[0], graph.workers()[2]).size(), 2U);  // same switch
  EXPECT_EQ(routes.route(graph.workers()[0], graph.workers()[8]).size(), 4U);
}

TEST(TreeBuilder, AnUnevenLastGroupAndOneWorker) {
  const auto graph = build_tree(5, 2, kLink);
  // Level 1: 3 switches (2, 2, 1 workers); level 2: 2; level 3: the root.
  EXPECT_EQ(topology::compute_statistics(graph).switches, 6U);
  EXPECT_EQ(graph.link_count(), 5U + 3U + 2U);
  EXPECT_EQ(build_tree(1, 2, kLink).link_count(), 0U);
}

TEST(MeshBuilder, EveryPairOneHopApart) {
  const auto graph = build_mesh(6, kLink);
  const auto stats = topology::compute_statistics(graph);
  EXPECT_EQ(stats.links, 15U);
  EXPECT_EQ(stats.diameter_hops, 1);
  EXPECT_DOUBLE_EQ(stats.average_hops, 1.0);
  for (const auto worker : graph.workers()) EXPECT_EQ(boost::degree(worker, graph.graph()), 5U);
  // Three workers on each side of the rank-order cut: 9 links across.
  EXPECT_DOUBLE_EQ(stats.bisection_bandwidth.value(), 9 * 1.25e9);
}

TEST(TorusBuilder, FourNeighboursAndWrapAround) {
  const auto graph = build_torus({4, 4}, kLink);
  const auto stats = topology::compute_statistics(graph);
  EXPECT_EQ(stats.links, 32U);
  for (const auto worker : graph.workers()) EXPECT_EQ(boost::degree(worker, graph.graph()), 4U);
  EXPECT_EQ(stats.diameter_hops, 4);  // 2 + 2
  // Rows 0-1 against rows 2-3: four columns cross twice (between rows 1-2 and around from 3 to 0).
  EXPECT_DOUBLE_EQ(stats.bisection_bandwidth.value(), 8 * 1.25e9);
  const topology::RoutingTable routes(graph);
  EXPECT_EQ(routes.route(graph.workers()[0], graph.workers()[3]).size(), 1U);  // wraps around
}

TEST(TorusBuilder, ThreeDimensionsAndSizeTwoWithoutDoubleLinks) {
  const auto graph = build_torus({2, 3, 2}, kLink);
  EXPECT_EQ(graph.node_count(), 12U);
  // Size-2 dimensions give 6 links each, the size-3 one 12.
  EXPECT_EQ(graph.link_count(), 6U + 12U + 6U);
  EXPECT_EQ(topology::compute_statistics(graph).diameter_hops, 3);
}

TEST(RandomRegularBuilder, EveryWorkerHasTheDegreeAndTheSeedDecides) {
  const auto graph = build_random_regular(16, 3, 7, kLink);
  EXPECT_EQ(graph.link_count(), 24U);
  for (const auto worker : graph.workers()) EXPECT_EQ(boost::degree(worker, graph.graph()), 3U);
  EXPECT_TRUE(topology::compute_statistics(graph).connected);
  const auto again = build_random_regular(16, 3, 7, kLink);
  const auto other = build_random_regular(16, 3, 8, kLink);
  std::vector<std::string> a, b, c;
  for (std::size_t i = 0; i < 24; ++i) {
    a.push_back(graph.link(i).name);
    b.push_back(again.link(i).name);
    c.push_back(other.link(i).name);
  }
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

// Where the configuration model almost never draws a connected simple graph (degree 2 on many workers: one
// cycle among many; a high degree: a double link somewhere), the builder still gives a connected regular one.
TEST(RandomRegularBuilder, DegreesTheConfigurationModelRarelyDrawsStillBuild) {
  for (const auto& [workers, degree] : {std::pair{200, 2}, std::pair{64, 12}, std::pair{9, 8}}) {
    const auto graph = build_random_regular(workers, degree, 5, kLink);
    EXPECT_EQ(graph.link_count(), static_cast<std::size_t>(workers * degree / 2)) << workers << " " << degree;
    for (const auto worker : graph.workers()) EXPECT_EQ(boost::degree(worker, graph.graph()), static_cast<std::size_t>(degree));
    EXPECT_TRUE(topology::compute_statistics(graph).connected) << workers << " " << degree;
  }
}

TEST(CustomBuilder, DeclaredNodesAndLinksWithTheirClasses) {
  const core::ConfigNode t = section(
      "{kind: custom, link: {bandwidth: 10Gbps, latency: 5us}, link_classes: {fast: {bandwidth: 80Gbps, latency: 1us}},"
      " nodes: [{name: a}, {name: hub, kind: switch}, {name: b, kind: worker}, {name: ps, kind: server}],"
      " links: [{from: a, to: hub}, {from: b, to: hub}, {from: ps, to: hub, class: fast}]}");
  const auto graph = build_custom(core::View(&t, "topology"));
  ASSERT_EQ(graph.workers().size(), 2U);
  EXPECT_EQ(graph.node(graph.workers()[1]).name, "b");
  ASSERT_EQ(graph.servers().size(), 1U);
  EXPECT_EQ(graph.link(2).name, "ps--hub");
  EXPECT_DOUBLE_EQ(graph.link(2).bandwidth.value(), 1e10);
  EXPECT_EQ(graph.link(2).link_class, "fast");
  EXPECT_EQ(graph.link(0).link_class, "link");
  const auto stats = topology::compute_statistics(graph);
  EXPECT_EQ(stats.switches, 1U);
  EXPECT_EQ(stats.diameter_hops, 2);
  EXPECT_DOUBLE_EQ(stats.bisection_bandwidth.value(), 1.25e9);
}

TEST(FatTreeBuilder, LeavesLinkedToEverySpine) {
  const auto graph = build_fat_tree(16, 4, 1.0, kLink);
  const auto stats = topology::compute_statistics(graph);
  EXPECT_EQ(stats.switches, 8U);         // 4 leaves, 4 spines
  EXPECT_EQ(stats.links, 16U + 4U * 4U);  // worker links, leaf-spine links
  EXPECT_EQ(graph.link(0).link_class, "leaf");
  EXPECT_EQ(graph.link(16).link_class, "spine");
  EXPECT_EQ(stats.diameter_hops, 4);
  // Full bisection: the 8 lower-rank workers can send 8 links' worth to the other 8.
  EXPECT_DOUBLE_EQ(stats.bisection_bandwidth.value(), 8 * 1.25e9);
}

TEST(FatTreeBuilder, OversubscriptionRemovesSpines) {
  const auto graph = build_fat_tree(16, 4, 2.0, kLink);
  const auto stats = topology::compute_statistics(graph);
  EXPECT_EQ(stats.switches, 6U);  // 4 leaves, 2 spines
  EXPECT_DOUBLE_EQ(stats.bisection_bandwidth.value(), 4 * 1.25e9);
  EXPECT_DOUBLE_EQ(stats.leaf_oversubscription, 2.0);
  EXPECT_EQ(graph.link(16).bandwidth.value(), kLink.bandwidth.value());  // o divides arity: whole links
  const auto one_leaf = topology::compute_statistics(build_fat_tree(3, 4, 1.0, kLink));
  EXPECT_EQ(one_leaf.switches, 1U);
  EXPECT_EQ(one_leaf.leaf_oversubscription, 0.0);  // no uplinks
}

// Four full leaves, ceil(arity / o) spines, each uplink arity / (o x spines) of a link: a leaf's ports over its
// uplinks are o, and workers 0 to 2 arity - 1 reach the others over two leaves' uplinks, 2 arity x B / o. Arity 2
// at o = 4 has one spine, as at o = 2, but uplinks of half a link.
class FatTreeRatio : public ::testing::TestWithParam<std::tuple<int, double>> {};

TEST_P(FatTreeRatio, IsTheDeclaredOne) {
  const auto [arity, oversubscription] = GetParam();
  const int spines = static_cast<int>(std::ceil(arity / oversubscription));
  const auto graph = build_fat_tree(4 * arity, arity, oversubscription, kLink);
  const auto stats = topology::compute_statistics(graph);
  EXPECT_EQ(stats.switches, static_cast<std::size_t>(4 + spines));
  EXPECT_NEAR(stats.leaf_oversubscription, oversubscription, 1e-12);
  EXPECT_NEAR(graph.link(static_cast<std::size_t>(4 * arity)).bandwidth.value(),
              arity * 1.25e9 / (oversubscription * spines), 1e-3);
  const double bisection = 2 * arity * 1.25e9 / oversubscription;
  EXPECT_NEAR(stats.bisection_bandwidth.value(), bisection, bisection * 1e-9);
}

INSTANTIATE_TEST_SUITE_P(ArityAndOversubscription, FatTreeRatio,
                         ::testing::Values(std::tuple{2, 4.0}, std::tuple{2, 3.0}, std::tuple{4, 3.0},
                                           std::tuple{8, 3.0}, std::tuple{6, 4.0}, std::tuple{4, 8.0},
                                           std::tuple{8, 2.0}, std::tuple{16, 1.5}),
                         [](const auto& param_info) {
                           return "a" + std::to_string(std::get<0>(param_info.param)) + "_o" +
                                  std::to_string(static_cast<int>(10 * std::get<1>(param_info.param)));
                         });

TEST(FatTreeBuilder, RoutesBetweenTwoLeavesSpreadOverTheSpines) {
  const auto graph = build_fat_tree(16, 4, 1.0, kLink);
  const topology::RoutingTable routes(graph);
  std::set<std::size_t> spine_links;
  for (int from = 0; from < 4; ++from) {
    for (int to = 4; to < 8; ++to) {
      const auto& route = routes.route(graph.workers()[static_cast<std::size_t>(from)], graph.workers()[static_cast<std::size_t>(to)]);
      ASSERT_EQ(route.size(), 4U);
      spine_links.insert(route[1].link);
    }
  }
  // Sixteen pairs from leaf 0 to leaf 1 go up more than one of leaf 0's four uplinks.
  EXPECT_GE(spine_links.size(), 3U);
}

TEST(GraphStatistics, RingHasTwoLinksAcrossItsMiddle) {
  const auto stats = topology::compute_statistics(build_ring(8, kLink));
  EXPECT_EQ(stats.diameter_hops, 4);
  EXPECT_DOUBLE_EQ(stats.average_hops, (2 * (1 + 2 + 3) + 4) / 7.0);
  EXPECT_DOUBLE_EQ(stats.bisection_bandwidth.value(), 2 * 1.25e9);
}

TEST(GraphStatistics, TreeBisectionIsTheRootLink) {
  EXPECT_DOUBLE_EQ(topology::compute_statistics(build_tree(4, 2, kLink)).bisection_bandwidth.value(), 1.25e9);
}

}  // namespace
}  // namespace dtsim::topologies

namespace dtsim::topologies {
namespace {

// Routes found by searches from both ends that meet in the middle equal those of one search back from the
// destination, link for link, among shortest paths that tie (ECMP on fat trees and tori, irregular graphs).
TEST(Routing, SearchesFromBothEndsGiveTheSameRoutesAsOneFromTheDestination) {
  const LinkSpec link{core::BytesPerSecond(1e9), core::Seconds(1e-6)};
  const std::vector<topology::TopologyGraph> graphs{
      build_random_regular(64, 3, 11, link), build_random_regular(48, 5, 3, link), build_torus({6, 5}, link),
      build_fat_tree(64, 8, 2.0, link), build_k_ary_fat_tree(128, 8, 2.0, link), build_ring(9, link)};
  for (const topology::TopologyGraph& graph : graphs) {
    const topology::RoutingTable both(graph);
    const topology::RoutingTable one(graph, topology::RoutingTable::Search::from_destination);
    const std::vector<topology::NodeId> hosts = graph.hosts();
    std::size_t compared = 0;
    for (std::size_t a = 0; a < hosts.size(); ++a) {
      for (std::size_t b = 0; b < hosts.size(); b += 1 + a % 3) {
        if (a == b) continue;
        const topology::Route& fast = both.route(hosts[a], hosts[b]);
        const topology::Route& whole = one.route(hosts[a], hosts[b]);
        ASSERT_EQ(fast.size(), whole.size()) << a << " " << b;
        for (std::size_t hop = 0; hop < fast.size(); ++hop) {
          EXPECT_EQ(fast[hop].link, whole[hop].link) << a << " " << b << " hop " << hop;
          EXPECT_EQ(fast[hop].forward, whole[hop].forward);
        }
        ++compared;
      }
    }
    EXPECT_GT(compared, hosts.size());
  }
}

}  // namespace
}  // namespace dtsim::topologies

namespace dtsim::topologies {
namespace {

void expect_each_route_as_route_gives(const topology::TopologyGraph& graph, const topology::RoutingTable& routes,
                                      const std::vector<topology::NodeId>& hosts) {
  std::set<std::pair<topology::NodeId, topology::NodeId>> seen;
  routes.for_each_route(hosts, [&](topology::NodeId from, topology::NodeId to, const topology::Route& walked) {
    EXPECT_TRUE(seen.emplace(from, to).second) << "pair given twice";
    const topology::Route& expected = routes.route(from, to);
    ASSERT_EQ(walked.size(), expected.size()) << from << " " << to;
    for (std::size_t hop = 0; hop < walked.size(); ++hop) {
      EXPECT_EQ(walked[hop].link, expected[hop].link) << from << " " << to << " hop " << hop;
      EXPECT_EQ(walked[hop].forward, expected[hop].forward);
    }
  });
  EXPECT_EQ(seen.size(), hosts.size() * (hosts.size() - 1)) << graph.node_count();
}

// Every pair's route walked from one search per host is route()'s, hop for hop: ECMP ties on fat trees, tori
// and irregular graphs, one-way links, a failed link, and hosts given in any order.
TEST(Routing, EveryRouteWalkedFromOneSearchPerHostIsTheRouteOfThePair) {
  const LinkSpec link{core::BytesPerSecond(1e9), core::Seconds(1e-6)};
  const std::vector<topology::TopologyGraph> graphs{
      build_random_regular(40, 3, 11, link), build_torus({6, 5}, link), build_fat_tree(64, 8, 2.0, link),
      build_k_ary_fat_tree(128, 8, 2.0, link), build_ring(9, link)};
  for (const topology::TopologyGraph& graph : graphs) {
    const topology::RoutingTable routes(graph);
    std::vector<topology::NodeId> hosts = graph.hosts();
    std::reverse(hosts.begin(), hosts.end());
    expect_each_route_as_route_gives(graph, routes, hosts);
    hosts.resize(hosts.size() / 2);
    expect_each_route_as_route_gives(graph, routes, hosts);
  }
  topology::TopologyGraph one_way;
  for (int i = 0; i < 6; ++i) one_way.add_worker(fmt::format("w{}", i));
  for (std::size_t i = 0; i < 6; ++i) {
    one_way.add_link(one_way.workers()[i], one_way.workers()[(i + 1) % 6], link.bandwidth, link.latency, "test", true);
  }
  one_way.add_link(one_way.workers()[0], one_way.workers()[3], link.bandwidth, link.latency, "test");
  const topology::RoutingTable one_way_routes(one_way);
  expect_each_route_as_route_gives(one_way, one_way_routes, one_way.hosts());
  const topology::TopologyGraph torus = build_torus({4, 4}, link);
  topology::RoutingTable cut(torus);
  cut.set_down(0, true);
  expect_each_route_as_route_gives(torus, cut, torus.hosts());
  EXPECT_THROW(cut.for_each_route(std::vector<topology::NodeId>{torus.hosts()[0], torus.hosts()[0]},
                                  [](topology::NodeId, topology::NodeId, const topology::Route&) {}),
               std::invalid_argument);
}

}  // namespace
}  // namespace dtsim::topologies

namespace dtsim::topologies {
namespace {

// A builder takes the topology's link from the context where the scenario resolved it (a calibration changes
// that copy alone), and from the section only without one: for every built-in topology whose example builds.
TEST(TopologyLink, BuildersReadTheResolvedLinkBeforeTheSection) {
  TopologyRegistry registry("topology");
  register_builtin_topologies(registry);
  const LinkSpec resolved{core::BytesPerSecond(7e9), core::Seconds(3e-6)};
  for (const std::string kind : {"ring", "mesh", "tree", "fat_tree", "k_ary_fat_tree", "random_regular", "parameter_server"}) {
    const core::ConfigNode t = section("{kind: " + kind + ", link: {bandwidth: 10Gbps, latency: 5us}" +
                                       (kind == "random_regular" ? ", degree: 3}" : "}"));
    TopologyContext context;
    context.workers = 8;
    context.registry = &registry;
    const topology::TopologyGraph from_section = build_topology(registry, kind, core::View(&t, "topology"), context);
    EXPECT_DOUBLE_EQ(from_section.link(0).bandwidth.value(), 1.25e9) << kind;
    context.link = resolved;
    const topology::TopologyGraph graph = build_topology(registry, kind, core::View(&t, "topology"), context);
    EXPECT_DOUBLE_EQ(graph.link(0).bandwidth.value(), 7e9) << kind;
    EXPECT_DOUBLE_EQ(graph.link(0).latency.value(), 3e-6) << kind;
  }
}

}  // namespace
}  // namespace dtsim::topologies

namespace dtsim::topologies {
namespace {

/// A topology section (its `link` added) over a cluster: how validation counts its size, and how it is built.
struct SizeCase {
  SizeCase(std::string yaml_text, int worker_count, std::vector<NodeShape> node_shapes = {}, int servers = 0)
      : yaml(std::move(yaml_text)), workers(worker_count), nodes(std::move(node_shapes)), attached_servers(servers) {}
  std::string yaml;
  int workers = 8;
  std::vector<NodeShape> nodes;
  int attached_servers = 0;  ///< parameter servers of the architecture; 0: none
};

// Validation refuses a topology past kMaxTopologyLinks from its size counted without building it: for every
// built-in topology, over clusters that reach each branch of its builder, the count is the graph it builds.
TEST(TopologySize, IsTheSizeOfTheGraphTheBuilderBuilds) {
  TopologyRegistry registry("topology");
  register_builtin_topologies(registry);
  const LinkSpec intra{core::BytesPerSecond(300e9), core::Seconds(1e-6)};
  const std::vector<NodeShape> mixed{NodeShape{2, 4, intra, IntraNode::AllToAll},
                                     NodeShape{1, 2, intra, IntraNode::AllToAll}};
  const std::vector<NodeShape> switched{NodeShape{4, 4, intra, IntraNode::Switch}};
  const std::vector<NodeShape> cube{NodeShape{2, 8, intra, IntraNode::CubeMesh}};
  const std::vector<SizeCase> cases{
      {"{kind: ring}", 1}, {"{kind: ring}", 2}, {"{kind: ring}", 9}, {"{kind: ring, bidirectional: false}", 2},
      {"{kind: ring}", 6, {}, 2},
      {"{kind: mesh}", 1}, {"{kind: mesh}", 7}, {"{kind: mesh}", 5, {}, 1},
      {"{kind: tree}", 1}, {"{kind: tree}", 5}, {"{kind: tree, arity: 4}", 17},
      {"{kind: fat_tree, arity: 4}", 3}, {"{kind: fat_tree, arity: 4}", 10},
      {"{kind: fat_tree, arity: 4, oversubscription: 3}", 16},
      {"{kind: k_ary_fat_tree}", 2}, {"{kind: k_ary_fat_tree}", 4}, {"{kind: k_ary_fat_tree}", 13},
      {"{kind: k_ary_fat_tree, k: 6, oversubscription: 3}", 40},
      {"{kind: torus, dimensions: [2, 4]}", 8}, {"{kind: torus, dimensions: [3, 3, 2]}", 18},
      {"{kind: torus, dimensions: [4, 4]}", 16},
      {"{kind: parameter_server}", 8, {}, 3},
      {"{kind: random_regular, degree: 3}", 8}, {"{kind: random_regular, degree: 4}", 9},
      {"{kind: dragonfly, groups: 9, routers: 4, hosts: 2, global_links: 2}", 72},
      {"{kind: dragonfly, groups: 3, routers: 2, hosts: 1, global_links: 3}", 6},
      {"{kind: dragonfly, groups: 4, routers: 3, hosts: 1, global_links: 2}", 12},
      {"{kind: dragonfly, groups: 1, routers: 4, hosts: 2, global_links: 0}", 8},
      {"{kind: custom, nodes: [{name: a}, {name: b}, {name: hub, kind: switch}], links: [{from: a, to: hub}, "
       "{from: b, to: hub}, {from: a, to: b}]}", 2},
      {"{kind: hierarchical, fabric: ring}", 10, mixed}, {"{kind: hierarchical, fabric: mesh}", 10, mixed},
      {"{kind: hierarchical, fabric: tree}", 9, mixed},
      {"{kind: hierarchical, fabric: fat_tree, nic: per_device}", 8, mixed},
      {"{kind: hierarchical, fabric: k_ary_fat_tree, nic: per_device}", 10, mixed},
      {"{kind: hierarchical, fabric: parameter_server}", 10, mixed, 2},
      {"{kind: hierarchical, fabric: fat_tree}", 10, mixed, 2},
      {"{kind: hierarchical, fabric: fat_tree, nic: per_device}", 14, switched},
      {"{kind: hierarchical, fabric: fat_tree}", 16, switched},
      {"{kind: hierarchical, fabric: rail, arity: 2, nic: per_device}", 16, switched},
      {"{kind: hierarchical, fabric: rail, arity: 2, oversubscription: 2, nic: per_device}", 13, switched},
      {"{kind: hierarchical, fabric: ring}", 16, cube}, {"{kind: hierarchical, fabric: ring}", 13, cube}};
  for (const SizeCase& c : cases) {
    SCOPED_TRACE(fmt::format("{} over {} workers", c.yaml, c.workers));
    const core::ConfigNode t = section("{" + kLinkYaml + ", " + c.yaml.substr(1));
    const core::View view(&t, "topology");
    TopologyContext context;
    context.workers = c.workers;
    context.nodes = c.nodes;
    context.nodes_declared = !c.nodes.empty();
    context.attach_servers = c.attached_servers > 0;
    context.servers = std::max(1, c.attached_servers);
    const std::string kind = view.text("kind");
    core::DiagnosticSink sink;
    check_topology(registry, kind, view, context, sink);
    ASSERT_TRUE(sink.empty()) << sink.size();
    const topology::TopologyGraph graph = build_topology(registry, kind, view, context);
    const TopologySize size = topology_size(registry, kind, view, context);
    EXPECT_EQ(size.nodes, static_cast<std::int64_t>(graph.node_count()));
    EXPECT_EQ(size.links, static_cast<std::int64_t>(graph.link_count()));
  }
  for (const std::string& kind : registry.registration_order()) {
    EXPECT_TRUE(static_cast<bool>(registry.find(kind).factory.size)) << kind << " counts no size";
  }
}

// The case: a full mesh of 65,536 workers would have 2^31 - 2^15 links (tens of gigabytes); it is refused
// from its count, before anything is allocated for it.
TEST(TopologySize, AGraphPastTheLinkLimitIsRefusedAtTheKindBeforeItIsBuilt) {
  TopologyRegistry registry("topology");
  register_builtin_topologies(registry);
  const core::ConfigNode t = section("{kind: mesh, " + kLinkYaml + "}");
  TopologyContext context;
  context.workers = 65'536;
  EXPECT_EQ(topology_size(registry, "mesh", core::View(&t, "topology"), context).links, 2'147'450'880);
  core::DiagnosticSink sink;
  check_topology(registry, "mesh", core::View(&t, "topology"), context, sink);
  ASSERT_EQ(sink.size(), 1U);
  context.workers = 2'000;
  core::DiagnosticSink fits;
  check_topology(registry, "mesh", core::View(&t, "topology"), context, fits);
  EXPECT_TRUE(fits.empty());
}

}  // namespace
}  // namespace dtsim::topologies
