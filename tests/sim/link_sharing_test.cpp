// Transfers of several jobs on one link in a SimGrid engine (runtime/link_sharing.hpp): two jobs filling a link
// each move at half their pace while both run, and at their whole pace before and after; latency is not
// stretched; a job's own transfers do not slow each other; a waiter of a mark within a transfer wakes when the
// transfer gets there; transfers not in step meet each other's bytes only while both move them.

#include "sim/platform/platform_builder.hpp"
#include "sim/runtime/network/engine_session.hpp"
#include "sim/runtime/network/link_sharing.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <cmath>
#include <functional>
#include <vector>

namespace dtsim::runtime {
namespace {

/// One transfer: begun by job `job` at `begin_s`, alone ending `alone_s` later, `latency_s` of it latency, moving
/// `bytes` on the link's forward direction; its waiter waits for the point it would reach alone at `mark_s` from
/// its start (its end, by default).
struct Planned {
  int job = 0;
  double begin_s = 0.0;
  double alone_s = 0.0;
  double latency_s = 0.0;
  double bytes = 0.0;
  double mark_s = -1.0;
  double flows = 1.0;
};

/// When each planned transfer's waiter woke, on two hosts joined by one link of 1 GB/s.
std::vector<double> run_transfers(const std::vector<Planned>& planned) {
  topology::TopologyGraph graph;
  const topology::NodeId a = graph.add_worker("a");
  const topology::NodeId b = graph.add_worker("b");
  graph.add_link(a, b, core::BytesPerSecond(1e9), core::Seconds(0.0), "link");
  EngineSession session(graph, scenario::NetworkModel::AlphaBeta, platform::uniform_platform(1e12));
  LinkSharing sharing(graph);
  std::vector<double> woke(planned.size(), -1.0);
  for (std::size_t i = 0; i < planned.size(); ++i) {
    simgrid::s4u::Actor::create("transfer", session.host(a), [&, i] {
      const Planned& p = planned[i];
      simgrid::s4u::this_actor::sleep_until(p.begin_s);
      const auto transfer = sharing.begin(p.job, p.begin_s + p.alone_s, p.latency_s, {{direction_of({0, true}), {p.bytes, p.flows}}});
      const double mark = p.begin_s + (p.mark_s < 0.0 ? p.alone_s : p.mark_s);
      if (transfer == nullptr) {
        simgrid::s4u::this_actor::sleep_until(mark);
        woke[i] = mark;
      } else {
        woke[i] = sharing.wait(transfer, mark);
      }
    });
  }
  static_cast<void>(session.run());
  return woke;
}

TEST(LinkSharing, TwoJobsFillingALinkEachMoveAtHalfPaceWhileBothRun) {
  // The first alone from 0 to 0.5 s, half done; both at half pace until the first ends at 1.5 s, the second
  // then half done; the second alone to 2 s.
  const std::vector<double> woke = run_transfers({{0, 0.0, 1.0, 0.0, 1e9}, {1, 0.5, 1.0, 0.0, 1e9}});
  EXPECT_DOUBLE_EQ(woke[0], 1.5);
  EXPECT_DOUBLE_EQ(woke[1], 2.0);
}

TEST(LinkSharing, ATransferThatMeetsNoOtherJobEndsWhenItWouldAlone) {
  const std::vector<double> woke = run_transfers({{0, 0.0, 1.0, 0.0, 1e9}, {0, 0.5, 1.0, 0.0, 1e9}, {1, 0.25, 0.125, 0.0, 0.0}});
  EXPECT_EQ(woke, (std::vector<double>{1.0, 1.5, 0.375}));
}

TEST(LinkSharing, FlowsShareALinkFairlyNotTransfers) {
  // Eight flows beside one: the eight get 8/9 of the link, the one 1/9, until the eight end at 1.125 s; the one,
  // then 1/8 of the way, alone for the rest.
  const std::vector<double> woke = run_transfers({{0, 0.0, 1.0, 0.0, 1e9, -1.0, 8.0}, {1, 0.0, 1.0, 0.0, 1e9}});
  EXPECT_DOUBLE_EQ(woke[0], 1.125);
  EXPECT_DOUBLE_EQ(woke[1], 2.0);
}

TEST(LinkSharing, LatencyIsPaidOnceWhateverTheSharing) {
  // Half a second of latency, then 0.5 GB at 1 GB/s: shared by two jobs, 0.5 + 0.5 GB / 0.5 GB/s.
  const std::vector<double> woke = run_transfers({{0, 0.0, 1.0, 0.5, 0.5e9}, {1, 0.0, 1.0, 0.5, 0.5e9}});
  EXPECT_DOUBLE_EQ(woke[0], 1.5);
  EXPECT_DOUBLE_EQ(woke[1], 1.5);
}

TEST(LinkSharing, TransfersNotInStepMeetEachOthersBytesOnlyWhileBothMoveThem) {
  // Half of each one's time latency, as in rounds of 0.5 ms latency then 0.5 ms of bytes: in step (begun together,
  // as long), the bytes meet all the time, as above; of other lengths, rounds alike but not in step, each moves
  // bytes a fraction b = 1 / (1 + r) of its time at rate r, and meets the other's that often: r = 1 - b / 2, so
  // r = sqrt(1/2). The first ends at 0.5 + 0.5 / r; the second is then halfway, as far as the first, and alone after.
  const std::vector<double> woke = run_transfers({{0, 0.0, 1.0, 0.5, 0.5e9}, {1, 0.0, 2.0, 1.0, 1e9}});
  const double first = 0.5 + 0.5 / std::sqrt(0.5);
  EXPECT_NEAR(woke[0], first, 1e-9);
  EXPECT_NEAR(woke[1], first + 1.0, 1e-9);
}

TEST(LinkSharing, AWaiterOfAPointWithinATransferWakesWhenTheTransferGetsThere) {
  // Job 0's two transfers, scaled to half the link each, meet job 1's: all three at half pace. A quarter of the
  // first's alone time takes half a second; the others end at 2 s.
  const std::vector<double> woke =
      run_transfers({{0, 0.0, 1.0, 0.0, 1e9, 0.25}, {0, 0.0, 1.0, 0.0, 1e9}, {1, 0.0, 1.0, 0.0, 1e9}});
  EXPECT_DOUBLE_EQ(woke[0], 0.5);
  EXPECT_DOUBLE_EQ(woke[1], 2.0);
  EXPECT_DOUBLE_EQ(woke[2], 2.0);
}

}  // namespace
}  // namespace dtsim::runtime
