// The three-tier k-ary fat tree against Al-Fares et al.'s formulas: switch and link counts, hops between
// hosts (2, 4, 6), and bisection bandwidth hosts / 2 x B / oversubscription.

#include "topologies/k_ary_fat_tree.hpp"
#include "sim/topology/graph_statistics.hpp"
#include "sim/topology/routing.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <tuple>

namespace dtsim::topologies {
namespace {

const LinkSpec kFatTreeLink{core::BytesPerSecond(12.5e9), core::Seconds(1e-6)};

class KAryFatTree : public ::testing::TestWithParam<std::tuple<int, double>> {};

TEST_P(KAryFatTree, MatchesItsFormulas) {
  const auto [k, oversubscription] = GetParam();
  const int hosts = k * k * k / 4;
  const int half = k / 2;
  const int aggregations = static_cast<int>(std::ceil(half / oversubscription));
  const auto graph = build_k_ary_fat_tree(hosts, k, oversubscription, kFatTreeLink);
  const auto stats = topology::compute_statistics(graph);
  EXPECT_EQ(stats.workers, static_cast<std::size_t>(hosts));
  // k pods of k/2 edges and `aggregations` aggregation switches; aggregations x k/2 cores.
  EXPECT_EQ(stats.switches, static_cast<std::size_t>(k * half + k * aggregations + aggregations * half));
  EXPECT_EQ(stats.links, static_cast<std::size_t>(hosts + k * half * aggregations + aggregations * half * k));
  EXPECT_EQ(stats.diameter_hops, 6);
  // From any host: k/2 - 1 hosts under its edge (2 hops), k^2/4 - k/2 in its pod (4), the rest (6).
  const double same_edge = half - 1;
  const double same_pod = half * half - half;
  const double elsewhere = hosts - half * half;
  EXPECT_NEAR(stats.average_hops, (2 * same_edge + 4 * same_pod + 6 * elsewhere) / (hosts - 1), 1e-12);
  EXPECT_NEAR(stats.bisection_bandwidth.value(), hosts / 2.0 * kFatTreeLink.bandwidth.value() / oversubscription, 1e-3);
  EXPECT_DOUBLE_EQ(stats.leaf_oversubscription, oversubscription);
}

INSTANTIATE_TEST_SUITE_P(Radixes, KAryFatTree,
                         ::testing::Values(std::tuple{4, 1.0}, std::tuple{8, 1.0}, std::tuple{12, 1.0},
                                           std::tuple{4, 2.0}, std::tuple{8, 2.0}, std::tuple{8, 4.0}),
                         [](const auto& param_info) {
                           return "k" + std::to_string(std::get<0>(param_info.param)) + "_o" +
                                  std::to_string(static_cast<int>(std::get<1>(param_info.param)));
                         });

// k = 8 at o = 3: 2 aggregation switches a pod (ceil(4 / 3)), each edge uplink 4 / (3 x 2) of a link and each
// core link as wide, so that an edge's hosts over its uplinks are 3 and the bisection hosts / 2 x B / 3.
TEST(KAryFatTreeBuilder, NarrowsItsUplinksWhereAggregationSwitchesCannotGiveTheRatio) {
  const auto graph = build_k_ary_fat_tree(128, 8, 3.0, kFatTreeLink);
  const auto stats = topology::compute_statistics(graph);
  EXPECT_EQ(stats.switches, static_cast<std::size_t>(8 * 4 + 8 * 2 + 2 * 4));
  EXPECT_NEAR(stats.leaf_oversubscription, 3.0, 1e-12);
  const double bisection = 64 * kFatTreeLink.bandwidth.value() / 3;
  EXPECT_NEAR(stats.bisection_bandwidth.value(), bisection, bisection * 1e-9);
  for (std::size_t id = 128; id < graph.link_count(); ++id) {
    EXPECT_NEAR(graph.link(id).bandwidth.value(), kFatTreeLink.bandwidth.value() * 4 / 6, 1e-3) << graph.link(id).name;
  }
}

TEST(KAryFatTreeBuilder, BuildsOnlyThePodsAndEdgesItsWorkersNeed) {
  EXPECT_EQ(topology::compute_statistics(build_k_ary_fat_tree(3, 8, 1.0, kFatTreeLink)).switches, 1U);  // one edge
  // 20 workers of a 8-ary tree: 5 edges in 2 pods (4 + 1 edges), 4 aggregation switches each, 16 cores.
  const auto stats = topology::compute_statistics(build_k_ary_fat_tree(20, 8, 1.0, kFatTreeLink));
  EXPECT_EQ(stats.switches, 5U + 8U + 16U);
  EXPECT_EQ(stats.diameter_hops, 6);
}

TEST(KAryFatTreeBuilder, RoutesAcrossPodsSpreadOverTheCore) {
  const auto graph = build_k_ary_fat_tree(16, 4, 1.0, kFatTreeLink);
  const topology::RoutingTable routes(graph);
  std::set<std::size_t> core_links;
  for (int from = 0; from < 4; ++from) {
    for (int to = 12; to < 16; ++to) {
      const auto& route =
          routes.route(graph.workers()[static_cast<std::size_t>(from)], graph.workers()[static_cast<std::size_t>(to)]);
      ASSERT_EQ(route.size(), 6U);
      core_links.insert(route[2].link);
      EXPECT_EQ(graph.link(route[2].link).link_class, "core");
    }
  }
  EXPECT_GE(core_links.size(), 3U) << "pod 0's four core uplinks share the sixteen pairs";
}

}  // namespace
}  // namespace dtsim::topologies
