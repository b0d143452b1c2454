// Flows timed alone, on hand-computed cases.

#include "sim/topology/uncontended_flows.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace dtsim::topology {
namespace {

struct Line {
  TopologyGraph graph;
  NodeId a, b, c;
  Line() {
    a = graph.add_worker("a");
    b = graph.add_worker("b");
    c = graph.add_worker("c");
    graph.add_link(a, b, core::BytesPerSecond(100.0), core::Seconds(1.0), "ab");
    graph.add_link(b, c, core::BytesPerSecond(50.0), core::Seconds(0.5), "bc");
  }
};

TEST(UncontendedCompletion, FlowsOnOneLinkDoNotShareIt) {
  Line line;
  const RoutingTable routes(line.graph);
  // Shared, these two would end at 3 s and 5 s (FluidCompletion); alone, 1 + 1 and 1 + 3.
  const std::vector<Flow> flows{{line.a, line.b, 100.0, 0.0, {}}, {line.a, line.b, 300.0, 0.0, {}}};
  const auto done = uncontended_completion_times(line.graph, routes, flows);
  EXPECT_DOUBLE_EQ(done[0], 2.0);
  EXPECT_DOUBLE_EQ(done[1], 4.0);
}

TEST(UncontendedCompletion, ARoutePaysEveryLatencyAndMovesAtItsSlowestLink) {
  Line line;
  const RoutingTable routes(line.graph);
  // a -> c: 1 + 0.5 s of latency, then 100 B at 50 B/s.
  const std::vector<Flow> flows{{line.a, line.c, 100.0, 0.25, {}}};
  EXPECT_DOUBLE_EQ(uncontended_completion_times(line.graph, routes, flows)[0], 0.25 + 1.5 + 2.0);
}

TEST(UncontendedCompletion, AFlowIsPostedWhenTheLastItWaitsForArrives) {
  Line line;
  const RoutingTable routes(line.graph);
  // Flow 0 waits for flows 1 and 2 (listed after it), which end at 2.5 s and 2 s: it is posted at 2.5.
  const std::vector<Flow> flows{{line.b, line.a, 100.0, 0.0, {1, 2}},
                                {line.b, line.c, 50.0, 1.0, {}},
                                {line.a, line.b, 100.0, 0.0, {}}};
  const auto done = uncontended_completion_times(line.graph, routes, flows);
  EXPECT_DOUBLE_EQ(done[2], 2.0);
  EXPECT_DOUBLE_EQ(done[1], 1.0 + 0.5 + 1.0);
  EXPECT_DOUBLE_EQ(done[0], 2.5 + 1.0 + 1.0);
}

TEST(UncontendedCompletion, RefusesCyclesStrangersAndSelfLoops) {
  Line line;
  const RoutingTable routes(line.graph);
  const std::vector<Flow> cycle{{line.a, line.b, 1.0, 0.0, {1}}, {line.b, line.a, 1.0, 0.0, {0}}};
  EXPECT_THROW(static_cast<void>(uncontended_completion_times(line.graph, routes, cycle)), std::invalid_argument);
  const std::vector<Flow> stranger{{line.a, line.b, 1.0, 0.0, {5}}};
  EXPECT_THROW(static_cast<void>(uncontended_completion_times(line.graph, routes, stranger)), std::invalid_argument);
  const std::vector<Flow> self{{line.a, line.a, 1.0, 0.0, {}}};
  EXPECT_THROW(static_cast<void>(uncontended_completion_times(line.graph, routes, self)), std::invalid_argument);
}

}  // namespace
}  // namespace dtsim::topology
