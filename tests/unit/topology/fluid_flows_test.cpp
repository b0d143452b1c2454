// Weighted max-min sharing and fluid completion times on hand-computed cases.

#include "sim/topology/fluid_flows.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace dtsim::topology {
namespace {

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

TEST(WeightedMaxMin, SharesALinkInProportionToTheWeights) {
  const std::vector<double> capacity{8.0};
  const std::vector<std::vector<std::size_t>> uses{{0}, {0}};
  const auto rate = weighted_max_min(capacity, uses, std::vector<double>{1.0, 3.0}, std::vector<double>{kUnbounded, kUnbounded});
  EXPECT_DOUBLE_EQ(rate[0], 2.0);
  EXPECT_DOUBLE_EQ(rate[1], 6.0);
}

TEST(WeightedMaxMin, ABoundedFlowLeavesTheRestToTheOthers) {
  const std::vector<double> capacity{10.0};
  const std::vector<std::vector<std::size_t>> uses{{0}, {0}, {0}};
  const auto rate = weighted_max_min(capacity, uses, std::vector<double>{1.0, 1.0, 1.0}, std::vector<double>{1.0, kUnbounded, kUnbounded});
  EXPECT_DOUBLE_EQ(rate[0], 1.0);
  EXPECT_DOUBLE_EQ(rate[1], 4.5);
  EXPECT_DOUBLE_EQ(rate[2], 4.5);
}

TEST(WeightedMaxMin, TheTighterLinkFixesItsFlowsFirst) {
  // Flows 1 and 2 share link B (4): 2 each; flow 0 takes what flow 1 leaves of link A (10): 8.
  const std::vector<double> capacity{10.0, 4.0};
  const std::vector<std::vector<std::size_t>> uses{{0}, {0, 1}, {1}};
  const auto rate = weighted_max_min(capacity, uses, std::vector<double>{1.0, 1.0, 1.0},
                                     std::vector<double>{kUnbounded, kUnbounded, kUnbounded});
  EXPECT_DOUBLE_EQ(rate[0], 8.0);
  EXPECT_DOUBLE_EQ(rate[1], 2.0);
  EXPECT_DOUBLE_EQ(rate[2], 2.0);
}

TEST(FluidCompletion, TwoFlowsOnOneLinkShareItUntilTheSmallerEnds) {
  TopologyGraph graph;
  const NodeId a = graph.add_worker("a");
  const NodeId b = graph.add_worker("b");
  graph.add_link(a, b, core::BytesPerSecond(100.0), core::Seconds(1.0), "l");
  const RoutingTable routes(graph);
  // After the 1 s latency both move at 50 B/s: the 100 B flow ends at 1 + 2 = 3 s, having left the other
  // 300 - 100 = 200 B, which then go at 100 B/s: 5 s.
  const std::vector<Flow> flows{{a, b, 100.0, 0.0, {}}, {a, b, 300.0, 0.0, {}}};
  const auto done = fluid_completion_times(graph, routes, flows);
  EXPECT_DOUBLE_EQ(done[0], 3.0);
  EXPECT_DOUBLE_EQ(done[1], 5.0);
  // Opposite directions of a full-duplex link do not share.
  const std::vector<Flow> both_ways{{a, b, 100.0, 0.0, {}}, {b, a, 100.0, 0.5, {}}};
  const auto apart = fluid_completion_times(graph, routes, both_ways);
  EXPECT_DOUBLE_EQ(apart[0], 2.0);
  EXPECT_DOUBLE_EQ(apart[1], 2.5);
}

}  // namespace
}  // namespace dtsim::topology
