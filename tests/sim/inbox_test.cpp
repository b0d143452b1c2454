// A parameter-server shard's inbox under SimGrid (SimGridInbox): four workers behind links of different
// latencies send to one server, so their messages arrive in a known order (worker 3, 1, 2, then 0). The server
// takes them in the order SimGrid's wait_any over every open receive gave: the first to arrive while it waits,
// the lowest sender among those already arrived; and its replies reach each worker. A posted send tells when it
// ended at an earlier instant, so that a stage may wait for it without waiting.

#include "sim/runtime/network/engine_session.hpp"
#include "sim/runtime/network/s4u_transport.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <functional>
#include <vector>

namespace dtsim {
namespace {

namespace s4u = simgrid::s4u;

constexpr int kWorkers = 4;
constexpr int kServer = kWorkers;  ///< the server's rank, after the workers'

/// Workers 0..3 reach the hub in 40, 20, 30 and 10 us; the server is 1 us beyond it.
topology::TopologyGraph star() {
  topology::TopologyGraph graph;
  const double latencies[kWorkers] = {40e-6, 20e-6, 30e-6, 10e-6};
  std::vector<topology::NodeId> workers;
  for (int w = 0; w < kWorkers; ++w) workers.push_back(graph.add_worker("worker-" + std::to_string(w)));
  const topology::NodeId server = graph.add_server("server");
  const topology::NodeId hub = graph.add_switch("hub");
  for (int w = 0; w < kWorkers; ++w) {
    graph.add_link(workers[static_cast<std::size_t>(w)], hub, core::BytesPerSecond(1e12),
                   core::Seconds(latencies[w]), "leaf");
  }
  graph.add_link(hub, server, core::BytesPerSecond(1e12), core::Seconds(1e-6), "uplink");
  return graph;
}

/// The value a worker sends in its round `round`.
float sent_by(int worker, int round) { return static_cast<float>(10 * worker + round); }

struct Star {
  topology::TopologyGraph graph = star();
  runtime::EngineSession session{graph, scenario::NetworkModel::AlphaBeta, platform::uniform_platform(1e9)};
  runtime::RunObserver observer;
  runtime::RunNetwork network;

  runtime::S4uTransport transport(int rank) {
    return {network, {.name = "inbox", .rank = rank, .size = kWorkers + 1}, runtime::Meter(observer, {.host = rank})};
  }
  /// Each worker sends `rounds` messages and waits for the reply to each (none with `replied` false);
  /// `replies[w]` gets what the replies carried.
  void workers(int rounds, bool replied, std::vector<std::vector<float>>& replies) {
    replies.assign(kWorkers, {});
    for (int w = 0; w < kWorkers; ++w) {
      s4u::Actor::create("worker", session.host(static_cast<topology::NodeId>(w)), [this, w, rounds, replied, &replies] {
        runtime::S4uTransport endpoint = transport(w);
        for (int round = 0; round < rounds; ++round) {
          endpoint.send(kServer, comm::Buffer({sent_by(w, round)}));
          if (replied) replies[static_cast<std::size_t>(w)].push_back(endpoint.recv(kServer).values()[0]);
        }
      });
    }
  }
  void server(const std::function<void(runtime::S4uTransport&)>& body) {
    s4u::Actor::create("server", session.host(static_cast<topology::NodeId>(kServer)), [this, body] {
      runtime::S4uTransport endpoint = transport(kServer);
      body(endpoint);
    });
  }
};

TEST(SimGridInbox, GivesTheFirstMessageToArriveWhileTheRankWaits) {
  Star star;
  std::vector<std::vector<float>> replies;
  star.workers(1, false, replies);
  std::vector<int> order;
  std::vector<float> values;
  star.server([&](runtime::S4uTransport& endpoint) {
    const auto inbox = endpoint.open_inbox();
    for (int w = 0; w < kWorkers; ++w) inbox->post(w);
    while (auto arrival = inbox->next()) {
      order.push_back(arrival->from);
      values.push_back(arrival->message.values()[0]);
    }
    inbox->close();
  });
  star.session.run();
  EXPECT_EQ(order, (std::vector<int>{3, 1, 2, 0}));
  EXPECT_EQ(values, (std::vector<float>{30.0F, 10.0F, 20.0F, 0.0F}));
}

TEST(SimGridInbox, GivesTheLowestSenderFirstAmongMessagesAlreadyArrived) {
  Star star;
  std::vector<std::vector<float>> replies;
  star.workers(1, false, replies);
  std::vector<int> order;
  star.server([&](runtime::S4uTransport& endpoint) {
    const auto inbox = endpoint.open_inbox();
    for (int w = 0; w < kWorkers; ++w) inbox->post(w);
    s4u::this_actor::sleep_for(1e-3);  // every message has arrived
    while (auto arrival = inbox->next()) order.push_back(arrival->from);
    inbox->close();
  });
  star.session.run();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
}

TEST(SimGridInbox, RepliesReachEachWorkerAndCloseWaitsForTheLast) {
  Star star;
  constexpr int kRounds = 3;
  std::vector<std::vector<float>> replies;
  star.workers(kRounds, true, replies);
  std::vector<int> taken(kWorkers, 0);
  double closed_at = 0.0;
  star.server([&](runtime::S4uTransport& endpoint) {
    const auto inbox = endpoint.open_inbox();
    for (int w = 0; w < kWorkers; ++w) inbox->post(w);
    while (auto arrival = inbox->next()) {
      int& count = taken[static_cast<std::size_t>(arrival->from)];
      EXPECT_EQ(arrival->message.values()[0], sent_by(arrival->from, count));
      if (++count < kRounds) inbox->post(arrival->from);
      inbox->reply(arrival->from, comm::Buffer({-arrival->message.values()[0]}));
    }
    inbox->close();
    closed_at = s4u::Engine::get_clock();
  });
  const double end = star.session.run();
  EXPECT_EQ(taken, (std::vector<int>(kWorkers, kRounds)));
  for (int w = 0; w < kWorkers; ++w) {
    EXPECT_EQ(replies[static_cast<std::size_t>(w)],
              (std::vector<float>{-sent_by(w, 0), -sent_by(w, 1), -sent_by(w, 2)}))
        << w;
  }
  // The run ends as worker 0, the farthest, gets its third reply, three round trips of 41 us each way after
  // the start; the server's close waited for it.
  EXPECT_GT(end, 6 * 41e-6);
  EXPECT_DOUBLE_EQ(closed_at, end);
}

TEST(SimGridMessages, APostedSendHasCompletedBeforeNowOnceTheClockHasPassedItsEnd) {
  Star star;
  bool before_received = true;
  bool after_received = false;
  double waited_at = 0.0;
  double waited_until = 0.0;
  s4u::Actor::create("worker", star.session.host(static_cast<topology::NodeId>(3)), [&] {
    runtime::S4uTransport endpoint = star.transport(3);
    const std::unique_ptr<comm::Pending> sent = endpoint.post_send(kServer, comm::Buffer({1.0F}), 0);
    before_received = sent->completed_before_now();
    s4u::this_actor::sleep_for(1e-3);  // the server took the message 11 us in
    after_received = sent->completed_before_now();
    waited_at = s4u::Engine::get_clock();
    static_cast<void>(sent->wait());
    waited_until = s4u::Engine::get_clock();
  });
  star.server([](runtime::S4uTransport& endpoint) { static_cast<void>(endpoint.recv(3)); });
  star.session.run();
  EXPECT_FALSE(before_received);
  EXPECT_TRUE(after_received);
  EXPECT_EQ(waited_until, waited_at);
}

}  // namespace
}  // namespace dtsim
