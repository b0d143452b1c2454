// Traces: a speed trace changes a host's speed over exactly its window (once, or every period), and a
// bandwidth trace a link's bandwidth: SimGrid profiles built from the scenario's points. Background traffic
// takes its share of a link.

#include "sim/runtime/network/background_traffic.hpp"
#include "sim/runtime/network/engine_session.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <gtest/gtest.h>

namespace dtsim {
namespace {

constexpr double kSpeed = 1e9;
constexpr double kBandwidth = 1e8;
constexpr double kLatency = 1e-3;

topology::TopologyGraph two_workers() {
  topology::TopologyGraph graph;
  const auto a = graph.add_worker("a");
  const auto b = graph.add_worker("b");
  graph.add_link(a, b, core::BytesPerSecond(kBandwidth), core::Seconds(kLatency), "pair");
  return graph;
}

/// When worker 0, following `trace`, finishes `flops` of work started at time 0.
double finish_time(const scenario::Trace& trace, double flops) {
  const topology::TopologyGraph graph = two_workers();
  platform::PlatformSpec spec = platform::uniform_platform(kSpeed);
  spec.workers = {platform::HostSpec{.speed = kSpeed, .idle_w = {}, .busy_w = {}, .speed_trace = trace},
                  platform::HostSpec{.speed = kSpeed, .idle_w = {}, .busy_w = {}, .speed_trace = {}}};
  runtime::EngineSession session(graph, scenario::NetworkModel::AlphaBeta, spec);
  double finished = 0.0;
  simgrid::s4u::Actor::create("work", session.host(graph.workers()[0]), [&] {
    simgrid::s4u::this_actor::execute(flops);
    finished = simgrid::s4u::Engine::get_clock();
  });
  session.run();
  return finished;
}

// SimGrid allows one engine per process, so each case runs as its own test.
TEST(SpeedTrace, HalvingTheSpeedBetweenT1AndT2StretchesExactlyThatWindow) {
  // 4 s of work at full speed; at half speed from 1 s to 3 s, those 2 s do 1 s of work: done at 5 s.
  const scenario::Trace trace{.points = {{1.0, 0.5}, {3.0, 1.0}}, .period_s = std::nullopt};
  EXPECT_NEAR(finish_time(trace, 4.0 * kSpeed), 5.0, 1e-9);
}

TEST(SpeedTrace, APeriodicTraceRepeatsItsWindowEveryPeriod) {
  // Half speed in [1, 2), [5, 6), [9, 10): 10 s of work lose 0.5 s in each of the three windows.
  const scenario::Trace trace{.points = {{1.0, 0.5}, {2.0, 1.0}}, .period_s = 4.0};
  EXPECT_NEAR(finish_time(trace, 10.0 * kSpeed), 11.5, 1e-9);
}

TEST(SpeedTrace, AWindowAfterTheWorkChangesNothing) {
  const scenario::Trace trace{.points = {{5.0, 0.25}}, .period_s = std::nullopt};
  EXPECT_NEAR(finish_time(trace, 4.0 * kSpeed), 4.0, 1e-9);
}

TEST(BandwidthTrace, HalfTheBandwidthDoublesTheTransferTime) {
  const topology::TopologyGraph graph = two_workers();
  platform::PlatformSpec spec = platform::uniform_platform(kSpeed);
  spec.link_traces = {{0, scenario::Trace{.points = {{0.0, 0.5}}, .period_s = std::nullopt}}};
  runtime::EngineSession session(graph, scenario::NetworkModel::AlphaBeta, spec);
  constexpr double kBytes = 1e7;
  double received = 0.0;
  simgrid::s4u::Mailbox* box = simgrid::s4u::Mailbox::by_name("pair");
  static int payload = 0;
  simgrid::s4u::Actor::create("send", session.host(graph.workers()[0]), [&] { box->put(&payload, kBytes); });
  simgrid::s4u::Actor::create("receive", session.host(graph.workers()[1]), [&] {
    box->get<int>();
    received = simgrid::s4u::Engine::get_clock();
  });
  session.run();
  EXPECT_NEAR(received, kLatency + kBytes / (0.5 * kBandwidth), 1e-9);
}

/// When a message of 10^7 bytes crossing the link beside a background flow of `rate` bytes/s arrives.
double arrival_beside_background(double rate) {
  const topology::TopologyGraph graph = two_workers();
  platform::PlatformSpec spec = platform::uniform_platform(kSpeed);
  spec.background = {{0, rate}};
  runtime::EngineSession session(graph, scenario::NetworkModel::AlphaBeta, spec);
  EXPECT_EQ(session.platform().background.size(), 2U);  // both ways on a full-duplex link
  runtime::start_background_traffic(session.platform());
  double received = 0.0;
  simgrid::s4u::Mailbox* box = simgrid::s4u::Mailbox::by_name("pair");
  static int payload = 0;
  simgrid::s4u::Actor::create("send", session.host(graph.workers()[0]), [&] { box->put(&payload, 1e7); });
  simgrid::s4u::Actor::create("receive", session.host(graph.workers()[1]), [&] {
    box->get<int>();
    received = simgrid::s4u::Engine::get_clock();
  });
  const double end = session.run();
  EXPECT_DOUBLE_EQ(end, received);  // the endless background flows stop with the job
  return received;
}

// SimGrid shares a link max-min fairly: a flow capped below its fair share keeps its rate and the message
// gets the rest; one capped above it is held to the fair share, like the message.
TEST(BackgroundTraffic, AFlowAtAQuarterOfTheLinkLeavesAMessageTheRest) {
  EXPECT_NEAR(arrival_beside_background(0.25 * kBandwidth), kLatency + 1e7 / (0.75 * kBandwidth), 1e-9);
}

TEST(BackgroundTraffic, AFlowAtThreeQuartersOfTheLinkSharesItFairlyWithAMessage) {
  EXPECT_NEAR(arrival_beside_background(0.75 * kBandwidth), kLatency + 1e7 / (0.5 * kBandwidth), 1e-9);
}

}  // namespace
}  // namespace dtsim
