#include "sim/topology/routing.hpp"
#include "topologies/parameter_server.hpp"
#include "topologies/ring.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <gtest/gtest.h>

namespace dtsim::topologies {
namespace {

const scenario::LinkSpec kLink{core::BytesPerSecond(1.25e9), core::Seconds(5e-6)};

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
  const scenario::LinkSpec server_link{core::BytesPerSecond(1e10), core::Seconds(1e-6)};
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

}  // namespace
}  // namespace dtsim::topologies
