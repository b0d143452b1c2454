// A run that deadlocks (an actor waits for a message none will send) is an error, not an end: SimGrid returns
// from it as from a finished run.

#include "sim/runtime/network/engine_session.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <stdexcept>

namespace dtsim {
namespace {

TEST(EngineSession, ADeadlockedRunThrowsNamingAWaitingActor) {
  topology::TopologyGraph graph;
  const topology::NodeId a = graph.add_worker("worker-0");
  const topology::NodeId b = graph.add_worker("worker-1");
  graph.add_link(a, b, core::BytesPerSecond(1e9), core::Seconds(1e-3), "link");
  runtime::EngineSession session(graph, scenario::NetworkModel::AlphaBeta, platform::uniform_platform(1e9));
  simgrid::s4u::Actor::create("listener", session.host(b), [] {
    // Nothing of the actor's own is left to destroy when SimGrid kills it in its wait: unwinding through the
    // actor's stack from a landing pad of its own trips AddressSanitizer, which does not know SimGrid's stacks.
    simgrid::s4u::Mailbox* silent = simgrid::s4u::Mailbox::by_name("silent");
    simgrid::s4u::this_actor::sleep_for(2.0);
    silent->get<int>();
  });
  try {
    session.run();
    FAIL() << "the run returned";
  } catch (const std::logic_error& error) {
    EXPECT_STREQ(error.what(),
                 "the simulation deadlocked at 2 s: 1 actors still wait, the first 'listener' on 'worker-1'");
  }
}

}  // namespace
}  // namespace dtsim
