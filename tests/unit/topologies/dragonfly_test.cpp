// The dragonfly topology, built through its registry entry as a run builds it.

#include "sim/scenario/config_loader.hpp"
#include "sim/topology/graph_statistics.hpp"
#include "sim/topology/routing.hpp"
#include "tests/support/scenario_format.hpp"
#include "topologies/topology_plugin.hpp"

#include <gtest/gtest.h>

#include <map>

namespace dtsim::topologies {
namespace {

core::ConfigNode dragonfly_section(const std::string& keys) {
  core::DiagnosticSink sink;
  core::ConfigNode node = scenario::load_config_text(dtsim::test::scenario_format().schema(), 
      "{kind: dragonfly, link: {bandwidth: 100Gbps, latency: 1us}, " + keys + "}", "topology.yaml", sink);
  EXPECT_TRUE(sink.empty());
  return node;
}

const TopologyPlugin& dragonfly() {
  static const TopologyRegistry registry = [] {
    TopologyRegistry r("topology");
    register_builtin_topologies(r);
    return r;
  }();
  return registry.find("dragonfly").factory;
}

topology::TopologyGraph build(const std::string& keys, int workers) {
  const core::ConfigNode t = dragonfly_section(keys);
  TopologyContext context;
  context.workers = workers;
  return dragonfly().make(core::View(&t, "topology"), context);
}

/// Global links between each pair of groups, and per router.
struct GlobalLinks {
  std::map<std::pair<int, int>, int> by_groups;
  std::map<std::string, int> by_router;
};

GlobalLinks global_links(const topology::TopologyGraph& graph) {
  GlobalLinks out;
  const auto group_of = [&](topology::NodeId node) { return std::stoi(graph.node(node).name.substr(6)); };
  for (std::size_t id = 0; id < graph.link_count(); ++id) {
    if (graph.link(id).link_class != "global") continue;
    const topology::LinkEnds& ends = graph.link_ends(id);
    const int a = group_of(ends.a);
    const int b = group_of(ends.b);
    EXPECT_NE(a, b);
    ++out.by_groups[{std::min(a, b), std::max(a, b)}];
    ++out.by_router[graph.node(ends.a).name];
    ++out.by_router[graph.node(ends.b).name];
  }
  return out;
}

// The largest dragonfly of a = 4 routers with h = 2 global links each: g = a h + 1 = 9 groups, one global link
// between every pair of groups, every router's two global ports used; minimal routes of at most 5 hops.
TEST(DragonflyTopology, TheLargestConfigurationJoinsEveryPairOfGroupsOnce) {
  const auto graph = build("groups: 9, routers: 4, hosts: 2, global_links: 2", 72);
  const auto stats = topology::compute_statistics(graph);
  EXPECT_EQ(stats.workers, 72U);
  EXPECT_EQ(stats.switches, 36U);
  EXPECT_EQ(stats.links, 72U + 9U * 6U + 36U);  // host links, 6 local links per group, C(9, 2) global links
  EXPECT_TRUE(stats.connected);
  EXPECT_EQ(stats.diameter_hops, 5);  // host, local, global, local, host
  const GlobalLinks global = global_links(graph);
  EXPECT_EQ(global.by_groups.size(), 36U);
  for (const auto& [pair, count] : global.by_groups) EXPECT_EQ(count, 1) << pair.first << "-" << pair.second;
  EXPECT_EQ(global.by_router.size(), 36U);
  for (const auto& [router, count] : global.by_router) EXPECT_EQ(count, 2) << router;
  // Workers fill routers in order: ranks 0 and 1 share group 0's router 0, one hop each way.
  const topology::RoutingTable routes(graph);
  EXPECT_EQ(routes.route(graph.workers()[0], graph.workers()[1]).size(), 2U);
  EXPECT_EQ(routes.route(graph.workers()[0], graph.workers()[2]).size(), 3U);  // through a local link
}

// Fewer groups than ports: every pair of groups gets the same number of global links per full round of ports.
TEST(DragonflyTopology, FewerGroupsGetParallelGlobalLinks) {
  const auto graph = build("groups: 3, routers: 2, hosts: 1, global_links: 2", 6);
  const GlobalLinks global = global_links(graph);
  ASSERT_EQ(global.by_groups.size(), 3U);
  for (const auto& [pair, count] : global.by_groups) EXPECT_EQ(count, 2);  // 4 ports, 2 others: two rounds
  for (const auto& [router, count] : global.by_router) EXPECT_EQ(count, 2) << router;
}

TEST(DragonflyTopology, GlobalLinksTakeTheirOwnLinkClass) {
  const auto graph = build("groups: 3, routers: 1, hosts: 1, global_links: 2, "
                           "global_link: {bandwidth: 25Gbps, latency: 300ns}", 3);
  for (std::size_t id = 0; id < graph.link_count(); ++id) {
    const double expected = graph.link(id).link_class == "global" ? 25e9 / 8 : 100e9 / 8;
    EXPECT_DOUBLE_EQ(graph.link(id).bandwidth.value(), expected) << graph.link(id).name;
  }
}

TEST(DragonflyTopology, RefusesAWrongSizeAndGroupsItCannotJoin) {
  const core::ConfigNode t = dragonfly_section("groups: 9, routers: 4, hosts: 2, global_links: 1");
  TopologyContext context;
  context.workers = 64;
  core::DiagnosticSink sink;
  dragonfly().check(core::View(&t, "topology"), context, sink);
  ASSERT_EQ(sink.size(), 2U);
  EXPECT_NE(sink.diagnostics()[0].message.find("9 x 4 x 2 = 72 hosts but the cluster has 64 workers"), std::string::npos);
  EXPECT_EQ(sink.diagnostics()[0].where.line, 1);
  EXPECT_NE(sink.diagnostics()[1].message.find("4 x 1 global ports, too few to reach the 8 other groups"),
            std::string::npos);
  EXPECT_EQ(sink.diagnostics()[1].hint, "use at least 2 global links per router, or fewer groups");
}

}  // namespace
}  // namespace dtsim::topologies
