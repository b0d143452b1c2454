#include "sim/topology/link_traffic.hpp"
#include "sim/topology/routing.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace dtsim::topology {
namespace {

const core::BytesPerSecond kRate(1e9);
const core::Seconds kDelay(1e-6);

TEST(Routing, FewestHopsAroundACycle) {
  TopologyGraph graph;
  for (int i = 0; i < 5; ++i) graph.add_worker(fmt::format("w{}", i));
  for (std::size_t i = 0; i < 5; ++i) graph.add_link(graph.workers()[i], graph.workers()[(i + 1) % 5], kRate, kDelay, "test");
  const RoutingTable routes(graph);
  const Route& two_ahead = routes.route(graph.workers()[0], graph.workers()[2]);
  ASSERT_EQ(two_ahead.size(), 2U);
  EXPECT_EQ(two_ahead[0].link, 0U);
  EXPECT_TRUE(two_ahead[0].forward);
  EXPECT_EQ(two_ahead[1].link, 1U);
  const Route& backwards = routes.route(graph.workers()[0], graph.workers()[4]);
  ASSERT_EQ(backwards.size(), 1U);
  EXPECT_EQ(backwards[0].link, 4U);
  EXPECT_FALSE(backwards[0].forward);  // link 4 runs w4 -> w0
}

// A route's latency is its links' summed, whichever way it runs; a host to itself has none.
TEST(Routing, ARoutesLatencyIsItsLinksSummed) {
  TopologyGraph graph;
  for (int i = 0; i < 4; ++i) graph.add_worker(fmt::format("w{}", i));
  graph.add_link(graph.workers()[0], graph.workers()[1], kRate, core::Seconds(1e-6), "test");
  graph.add_link(graph.workers()[1], graph.workers()[2], kRate, core::Seconds(2e-6), "test");
  graph.add_link(graph.workers()[2], graph.workers()[3], kRate, core::Seconds(4e-6), "test");
  const RoutingTable routes(graph);
  const LinkTraffic traffic(graph, routes);
  EXPECT_DOUBLE_EQ(traffic.latency(0, 1), 1e-6);
  EXPECT_DOUBLE_EQ(traffic.latency(0, 3), 7e-6);
  EXPECT_DOUBLE_EQ(traffic.latency(3, 1), 6e-6);
  EXPECT_EQ(traffic.latency(2, 2), 0.0);
}

// Routes are computed on request; the order of the requests must not change them (ECMP ties on a torus).
TEST(Routing, RoutesDoNotDependOnTheOrderTheyAreAskedFor) {
  TopologyGraph graph;
  for (int i = 0; i < 16; ++i) graph.add_worker(fmt::format("w{}", i));
  for (std::size_t row = 0; row < 4; ++row) {
    for (std::size_t col = 0; col < 4; ++col) {
      const auto at = [&](std::size_t r, std::size_t c) { return graph.workers()[(r % 4) * 4 + c % 4]; };
      graph.add_link(at(row, col), at(row, col + 1), kRate, kDelay, "test");
      graph.add_link(at(row, col), at(row + 1, col), kRate, kDelay, "test");
    }
  }
  const RoutingTable forwards(graph);
  const RoutingTable backwards(graph);
  std::vector<std::pair<NodeId, NodeId>> pairs;
  for (const NodeId a : graph.workers()) {
    for (const NodeId b : graph.workers()) {
      if (a != b) pairs.emplace_back(a, b);
    }
  }
  std::vector<Route> first;
  for (const auto& [a, b] : pairs) first.push_back(forwards.route(a, b));
  for (std::size_t i = pairs.size(); i-- > 0;) {
    const Route& again = backwards.route(pairs[i].first, pairs[i].second);
    ASSERT_EQ(again.size(), first[i].size());
    for (std::size_t h = 0; h < again.size(); ++h) {
      EXPECT_EQ(again[h].link, first[i][h].link);
      EXPECT_EQ(again[h].forward, first[i][h].forward);
    }
  }
}

TEST(Routing, ReverseRouteIsTheRouteReversed) {
  TopologyGraph graph;
  const NodeId a = graph.add_worker("a");
  const NodeId hub = graph.add_switch("s");
  const NodeId b = graph.add_server("b");
  graph.add_link(a, hub, kRate, kDelay, "test");
  graph.add_link(b, hub, kRate, kDelay, "test");
  const RoutingTable routes(graph);
  const Route& there = routes.route(a, b);
  const Route& back = routes.route(b, a);
  ASSERT_EQ(there.size(), 2U);
  ASSERT_EQ(back.size(), 2U);
  EXPECT_EQ(back[0].link, there[1].link);
  EXPECT_NE(back[0].forward, there[1].forward);
  EXPECT_EQ(back[1].link, there[0].link);
}

TEST(Routing, DisconnectedHostsAreAnError) {
  TopologyGraph graph;
  graph.add_worker("a");
  graph.add_worker("b");
  try {
    const RoutingTable routes(graph);
    FAIL();
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "the topology is not connected: no path from a to b");
  }
}

// A failed link: routes go the other way around a full-duplex ring; a one-way ring is cut in two.
TEST(Routing, ALinkDownIsRoutedAroundWhereTheGraphAllowsAndPartitionsWhereItDoesNot) {
  for (const bool one_way : {false, true}) {
    TopologyGraph graph;
    for (int i = 0; i < 5; ++i) graph.add_worker(fmt::format("w{}", i));
    for (std::size_t i = 0; i < 5; ++i) {
      graph.add_link(graph.workers()[i], graph.workers()[(i + 1) % 5], kRate, kDelay, "test", one_way);
    }
    RoutingTable routes(graph);
    ASSERT_EQ(routes.route(graph.workers()[1], graph.workers()[2]).size(), 1U);
    routes.set_down(1, true);  // w1 -- w2
    if (one_way) {
      const auto cut = routes.partition();
      ASSERT_TRUE(cut.has_value());
      EXPECT_THROW(static_cast<void>(routes.route(graph.workers()[1], graph.workers()[2])), std::out_of_range);
    } else {
      EXPECT_FALSE(routes.partition().has_value());
      const Route& around = routes.route(graph.workers()[1], graph.workers()[2]);
      ASSERT_EQ(around.size(), 4U);  // w1 -> w0 -> w4 -> w3 -> w2
      for (const Hop& hop : around) EXPECT_NE(hop.link, 1U);
    }
    routes.set_down(1, false);
    EXPECT_FALSE(routes.partition().has_value());
    EXPECT_EQ(routes.route(graph.workers()[1], graph.workers()[2]).size(), 1U);
  }
}

TEST(TopologyGraph, RejectsSelfLinksAndZeroBandwidth) {
  TopologyGraph graph;
  const NodeId a = graph.add_worker("a");
  const NodeId b = graph.add_worker("b");
  EXPECT_THROW(graph.add_link(a, a, kRate, kDelay, "test"), std::logic_error);
  EXPECT_THROW(graph.add_link(a, b, core::BytesPerSecond(0.0), kDelay, "test"), std::logic_error);
}

}  // namespace
}  // namespace dtsim::topology

namespace dtsim::topology {
namespace {

TEST(TopologyGraph, CopiesKeepTheirLinks) {
  auto make = [] {
    TopologyGraph graph;
    const NodeId a = graph.add_worker("a");
    const NodeId b = graph.add_worker("b");
    graph.add_link(a, b, core::BytesPerSecond(3e9), core::Seconds(2e-6), "test");
    return graph;
  };
  const TopologyGraph original = make();
  const TopologyGraph copy = original;  // NOLINT(performance-unnecessary-copy-initialization): the copy is the test
  EXPECT_EQ(copy.link(0).name, "a--b");
  EXPECT_DOUBLE_EQ(copy.link(0).bandwidth.value(), 3e9);
  const RoutingTable routes(copy);
  EXPECT_EQ(routes.route(copy.workers()[0], copy.workers()[1]).size(), 1U);
}

}  // namespace
}  // namespace dtsim::topology
