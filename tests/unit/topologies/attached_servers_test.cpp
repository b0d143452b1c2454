// Parameter servers on any fabric: a topology without servers of its own gets them on the host ports after
// the workers, exactly where the same topology built for workers + servers hosts has its last hosts.

#include "sim/scenario/config_loader.hpp"
#include "sim/topology/graph_statistics.hpp"
#include "tests/support/scenario_format.hpp"
#include "topologies/topology_plugin.hpp"

#include <gtest/gtest.h>
#include <boost/graph/adjacency_list.hpp>

#include <string>
#include <tuple>

namespace dtsim::topologies {
namespace {

core::ConfigNode topology_section(const std::string& yaml) {
  core::DiagnosticSink sink;
  core::ConfigNode node = scenario::load_config_text(dtsim::test::scenario_format().schema(), yaml, "section.yaml", sink);
  EXPECT_TRUE(sink.empty());
  return node;
}

TopologyRegistry builtin() {
  TopologyRegistry registry("topology");
  register_builtin_topologies(registry);
  return registry;
}

struct Case {
  std::string kind;
  std::string keys;
  int workers;
};

class AttachedServers : public ::testing::TestWithParam<Case> {};

TEST_P(AttachedServers, TakeTheLastHostPorts) {
  const Case c = GetParam();
  const TopologyRegistry registry = builtin();
  const core::ConfigNode t =
      topology_section("{kind: " + c.kind + ", link: {bandwidth: 10Gbps, latency: 5us}" + c.keys + "}");
  const core::View view(&t, "topology");
  constexpr int kServers = 2;
  TopologyContext with;
  with.workers = c.workers;
  with.servers = kServers;
  with.attach_servers = true;
  const topology::TopologyGraph graph = build_topology(registry, c.kind, view, with);
  TopologyContext hosts_only;
  hosts_only.workers = c.workers + kServers;
  const topology::TopologyGraph plain = build_topology(registry, c.kind, view, hosts_only);

  ASSERT_EQ(graph.workers().size(), static_cast<std::size_t>(c.workers));
  ASSERT_EQ(graph.servers().size(), static_cast<std::size_t>(kServers));
  ASSERT_EQ(graph.link_count(), plain.link_count());
  ASSERT_EQ(graph.node_count(), plain.node_count());
  for (int i = 0; i < kServers; ++i) {
    const topology::NodeId server = graph.servers()[static_cast<std::size_t>(i)];
    EXPECT_EQ(graph.node(server).name, "server-" + std::to_string(i));
    // The same node as the plain graph's host c.workers + i, with the same links.
    EXPECT_EQ(server, plain.workers()[static_cast<std::size_t>(c.workers + i)]);
    EXPECT_EQ(boost::degree(server, graph.graph()), boost::degree(server, plain.graph()));
  }
  for (std::size_t id = 0; id < graph.link_count(); ++id) {
    EXPECT_EQ(graph.link(id).link_class, plain.link(id).link_class);
    EXPECT_EQ(graph.link(id).bandwidth.value(), plain.link(id).bandwidth.value());
  }
  const auto stats = topology::compute_statistics(graph);
  const auto plain_stats = topology::compute_statistics(plain);
  EXPECT_EQ(stats.servers, static_cast<std::size_t>(kServers));
  EXPECT_EQ(stats.diameter_hops, plain_stats.diameter_hops);
}

INSTANTIATE_TEST_SUITE_P(EveryHostTopology, AttachedServers,
                         ::testing::Values(Case{"ring", "", 6}, Case{"tree", ", arity: 3", 10},
                                           Case{"fat_tree", ", arity: 4", 14}, Case{"k_ary_fat_tree", ", k: 4", 14},
                                           Case{"mesh", "", 5}, Case{"random_regular", ", degree: 3", 8},
                                           Case{"torus", ", dimensions: [2, 4]", 6},
                                           Case{"dragonfly", ", groups: 3, routers: 2, hosts: 2, global_links: 1", 10}),
                         [](const auto& param_info) { return param_info.param.kind; });

TEST(AttachedServers, AStarAndACustomGraphPlaceTheirOwn) {
  const TopologyRegistry registry = builtin();
  const core::ConfigNode star = topology_section("{kind: parameter_server, link: {bandwidth: 10Gbps, latency: 5us}}");
  TopologyContext context;
  context.workers = 4;
  context.servers = 3;
  context.attach_servers = true;
  const auto graph = build_topology(registry, "parameter_server", core::View(&star, "topology"), context);
  EXPECT_EQ(graph.workers().size(), 4U);
  EXPECT_EQ(graph.servers().size(), 3U);
}

TEST(AttachedServers, OnAHierarchicalFabricTheyTakeFabricPortsAfterTheNics) {
  const TopologyRegistry registry = builtin();
  const LinkSpec intra{core::BytesPerSecond(300e9), core::Seconds(1e-6)};
  for (const std::string fabric : {"fat_tree, arity: 4", "k_ary_fat_tree, k: 4"}) {
    SCOPED_TRACE(fabric);
    const core::ConfigNode t =
        topology_section("{kind: hierarchical, link: {bandwidth: 10Gbps, latency: 5us}, fabric: " + fabric + "}");
    TopologyContext context;
    context.workers = 16;
    context.nodes = {NodeShape{4, 4, intra, IntraNode::Switch}};
    context.servers = 2;
    context.attach_servers = true;
    const auto graph = build_topology(registry, "hierarchical", core::View(&t, "topology"), context);
    ASSERT_EQ(graph.workers().size(), 16U);
    ASSERT_EQ(graph.servers().size(), 2U);
    EXPECT_EQ(graph.node(graph.servers()[1]).name, "fabric-server-1");
    // Each server has one port into the fabric, at the fabric's rate.
    const topology::NodeId server = graph.servers()[0];
    ASSERT_EQ(boost::degree(server, graph.graph()), 1U);
    const auto edge = *boost::out_edges(server, graph.graph()).first;
    EXPECT_EQ(graph.link(graph.graph()[edge].link).bandwidth.value(), 1.25e9);
    EXPECT_EQ(graph.link(graph.graph()[edge].link).link_class.rfind("fabric/", 0), 0U);
  }
}

TEST(NodePorts, OneNicPortPerNodeCarriesAllOfItsNics) {
  const TopologyRegistry registry = builtin();
  const LinkSpec intra{core::BytesPerSecond(300e9), core::Seconds(1e-6)};
  const core::ConfigNode t = topology_section(
      "{kind: hierarchical, link: {bandwidth: 10Gbps, latency: 5us}, fabric: fat_tree, arity: 2, nic: per_node}");
  TopologyContext context;
  context.workers = 16;
  context.nodes = {NodeShape{2, 4, intra, IntraNode::Switch, 4}, NodeShape{2, 4, intra, IntraNode::AllToAll, 1}};
  const auto graph = build_topology(registry, "hierarchical", core::View(&t, "topology"), context);
  // The leaf links of the fabric: the two 4-NIC nodes' ports at 4 x 10 Gb/s, the others' at 10 Gb/s; a leaf's
  // uplinks to the two spines carry what its ports do (oversubscription 1): 4 links each from the first leaf,
  // one from the second.
  int wide = 0;
  int narrow = 0;
  for (std::size_t id = 0; id < graph.link_count(); ++id) {
    const auto& link = graph.link(id);
    if (link.link_class.rfind("fabric/", 0) != 0) continue;
    const std::string a = graph.node(graph.link_ends(id).a).name;
    const std::string b = graph.node(graph.link_ends(id).b).name;
    const bool port = a.rfind("node-", 0) == 0 || b.rfind("node-", 0) == 0;
    if (!port) {
      EXPECT_EQ(link.bandwidth.value(), a == "fabric-leaf-0" ? 5e9 : 1.25e9) << link.name;
      continue;
    }
    const bool four = a.rfind("node-0", 0) == 0 || a.rfind("node-1", 0) == 0 || b.rfind("node-0", 0) == 0 ||
                      b.rfind("node-1", 0) == 0;
    EXPECT_EQ(link.bandwidth.value(), four ? 5e9 : 1.25e9) << link.name;
    (four ? wide : narrow) += 1;
  }
  EXPECT_EQ(wide, 2);
  EXPECT_EQ(narrow, 2);
}

}  // namespace
}  // namespace dtsim::topologies
