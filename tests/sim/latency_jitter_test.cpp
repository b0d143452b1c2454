// Jitter on a link (link_conditions[].jitter): every message over the jittered link arrives its route's latency
// plus size / bandwidth plus its own draw, the draws taken in the order the messages start from the seed's stream
// "links/jitter"; a message over another link meets none. Under the tcp model the model's own latency factor is
// kept, and the jitter added to it.

#include "sim/platform/latency_jitter.hpp"
#include "sim/runtime/network/engine_session.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <vector>

namespace dtsim {
namespace {

namespace s4u = simgrid::s4u;

constexpr double kLatency = 10e-3;
constexpr double kBandwidth = 1e9;
constexpr double kBytes = 1e6;
constexpr int kMessages = 50;
constexpr std::uint64_t kSeed = 11;

/// Worker 0 joined to worker 1 by link "jittered" and to worker 2 by link "plain", alike but for the jitter.
struct Pair {
  topology::TopologyGraph graph;
  std::size_t jittered_link = 0;
  platform::PlatformSpec spec = platform::uniform_platform(1e9);

  explicit Pair(scenario::JitterDistribution distribution) {
    const topology::NodeId a = graph.add_worker("worker-0");
    const topology::NodeId b = graph.add_worker("worker-1");
    const topology::NodeId c = graph.add_worker("worker-2");
    jittered_link = graph.add_link(a, b, core::BytesPerSecond(kBandwidth), core::Seconds(kLatency), "wan");
    graph.add_link(a, c, core::BytesPerSecond(kBandwidth), core::Seconds(kLatency), "wan");
    spec.link_jitters.push_back({.link = jittered_link, .mean_s = 5e-3, .distribution = distribution});
    spec.jitter_seed = kSeed;
  }
};

/// The time each of kMessages messages, sent one after the other from worker 0 to `to`, takes.
std::vector<double> durations(runtime::EngineSession& session, int to) {
  auto times = std::make_shared<std::vector<double>>();
  const std::string name = "to-" + std::to_string(to);
  s4u::Actor::create("sender", session.host(0), [name, times] {
    static int payload = 0;
    for (int i = 0; i < kMessages; ++i) {
      const double start = s4u::Engine::get_clock();
      s4u::Mailbox::by_name(name)->put(&payload, static_cast<std::uint64_t>(kBytes));
      times->push_back(s4u::Engine::get_clock() - start);
    }
  });
  s4u::Actor::create("receiver", session.host(static_cast<topology::NodeId>(to)), [name] {
    for (int i = 0; i < kMessages; ++i) s4u::Mailbox::by_name(name)->get<int>();
  });
  session.run();
  return *times;
}

TEST(LatencyJitter, EachMessageOverTheLinkMeetsItsOwnDrawInTurn) {
  Pair pair(scenario::JitterDistribution::Exponential);
  runtime::EngineSession session(pair.graph, scenario::NetworkModel::AlphaBeta, pair.spec);
  const std::vector<double> times = durations(session, 1);
  platform::JitterDraws replay(kSeed);
  ASSERT_EQ(times.size(), static_cast<std::size_t>(kMessages));
  bool varied = false;
  for (const double took : times) {
    const double draw = replay.draw(pair.spec.link_jitters.front());
    EXPECT_NEAR(took, kLatency + kBytes / kBandwidth + draw, 1e-9);
    varied = varied || std::abs(took - times.front()) > 1e-6;
  }
  EXPECT_TRUE(varied);
}

TEST(LatencyJitter, AMessageOverAnotherLinkMeetsNone) {
  Pair pair(scenario::JitterDistribution::Uniform);
  runtime::EngineSession session(pair.graph, scenario::NetworkModel::AlphaBeta, pair.spec);
  for (const double took : durations(session, 2)) EXPECT_NEAR(took, kLatency + kBytes / kBandwidth, 1e-12);
}

TEST(LatencyJitter, TheTcpModelKeepsItsOwnLatencyFactorBesideTheJitter) {
  Pair pair(scenario::JitterDistribution::Uniform);
  runtime::EngineSession session(pair.graph, scenario::NetworkModel::Tcp, pair.spec);
  // Worker 0 sends over both links at once, the plain link's messages timing the tcp model without jitter.
  auto plain = std::make_shared<std::vector<double>>();
  s4u::Actor::create("plain", session.host(0), [plain] {
    static int payload = 0;
    for (int i = 0; i < kMessages; ++i) {
      const double start = s4u::Engine::get_clock();
      s4u::Mailbox::by_name("to-2")->put(&payload, static_cast<std::uint64_t>(kBytes));
      plain->push_back(s4u::Engine::get_clock() - start);
    }
  });
  s4u::Actor::create("receiver", session.host(2), [] {
    for (int i = 0; i < kMessages; ++i) s4u::Mailbox::by_name("to-2")->get<int>();
  });
  const std::vector<double> jittered = durations(session, 1);
  platform::JitterDraws replay(kSeed);
  ASSERT_EQ(plain->size(), jittered.size());
  EXPECT_GT(plain->front(), 13.0 * kLatency);  // LV08's factor of 13.01 on the latency
  for (std::size_t i = 0; i < jittered.size(); ++i) {
    EXPECT_NEAR(jittered[i] - (*plain)[i], replay.draw(pair.spec.link_jitters.front()), 1e-9) << i;
  }
}

}  // namespace
}  // namespace dtsim
