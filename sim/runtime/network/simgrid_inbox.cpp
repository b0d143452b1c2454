#include "sim/runtime/network/simgrid_inbox.hpp"

#include "sim/runtime/network/simgrid_messages.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dtsim::runtime {
namespace s4u = simgrid::s4u;

// The rank and the waiters meet through these fields. SimGrid runs one actor at a time and switches only at
// its calls, so no lock guards them. A waiter waits for work suspended, and the rank resumes it (as in
// gradient_stream.cpp); the rank waits for a message on a semaphore, since suspending an actor suspends the
// communications it started. The rank's resume is a call into SimGrid, which runs the waiter before the
// rank goes on: what the rank hands over is posted at once.
struct SimGridInbox::State {
  struct Peer {
    std::unique_ptr<comm::Buffer*> payload;  ///< where SimGrid sets the arriving message; null when none
    double posted_at = 0.0;                  ///< when the rank opened the receive
    bool receive_handed = false;             ///< opened by the rank, not yet posted by the waiter
    bool awaiting_reply = false;             ///< the rank took a message and has not replied yet
    s4u::CommPtr receive;
    std::optional<comm::Buffer> reply_handed;
    bool reply_posting = false;  ///< handed over, and not yet posted (posting is itself a call into SimGrid)
    s4u::CommPtr reply;          ///< the last reply posted
    bool reply_done = false;     ///< its waiter has seen it complete
    double reply_posted_at = 0.0;
    s4u::ActorPtr waiter;  ///< created at the peer's first receive
  };

  State(SimGridMessages& owner, int ranks) : messages(&owner), peers(static_cast<std::size_t>(ranks)) {}

  SimGridMessages* messages;
  std::vector<Peer> peers;            ///< by rank
  std::set<int> arrived;              ///< peers whose message has arrived and is not yet taken
  std::multiset<double> open_since;   ///< when each open receive was opened
  bool rank_waiting = false;          ///< the rank waits in next() for a message to arrive
  s4u::SemaphorePtr arrival = s4u::Semaphore::create(0);  ///< released when one does
  int first = -1;                     ///< the first message to arrive while the rank waited
  int watched = -1;                   ///< the peer whose reply the rank waits for
  s4u::SemaphorePtr replied = s4u::Semaphore::create(0);  ///< released when it is complete
  bool closed = false;                ///< the rank is done: the waiters end

  [[nodiscard]] static bool may_receive(const Peer& peer) { return peer.receive_handed && !peer.awaiting_reply; }

  void serve(int rank);
  void wake(int rank);
  /// The rank waits until its last reply to `rank` is complete. Only the waiter, the reply's sender, waits
  /// on the communication itself: SimGrid 3.32 gives a communication one pending wait per side, and a third
  /// waiter takes the place of the receiver's.
  void wait_reply(int rank);
};

void SimGridInbox::State::serve(int rank) {
  // The reply first: a peer sends again only once it has it, so the next receive is posted, at the latest,
  // when the reply is. Posted here, the communications are among the waiter's activities, which SimGrid
  // drops as its waits end.
  Peer& peer = peers[static_cast<std::size_t>(rank)];
  for (;;) {
    while (!peer.reply_handed && !may_receive(peer)) {
      if (closed) return;
      s4u::this_actor::suspend();
    }
    s4u::CommPtr sent;
    if (peer.reply_handed) {
      comm::Buffer contents = std::move(*peer.reply_handed);
      peer.reply_handed.reset();
      sent = messages->start_send(rank, std::move(contents));
      peer.reply = sent;
      peer.reply_done = false;
      peer.reply_posting = false;
    }
    s4u::CommPtr receiving;
    if (may_receive(peer)) {
      peer.receive_handed = false;
      receiving = messages->start_recv(rank, peer.payload.get());
      peer.receive = receiving;
    }
    if (sent) {
      sent->wait();
      peer.reply_done = true;
      if (watched == rank) {
        watched = -1;
        replied->release();
      }
    }
    if (receiving) {
      receiving->wait();
      wake(rank);
    }
  }
}

void SimGridInbox::State::wait_reply(int rank) {
  Peer& peer = peers[static_cast<std::size_t>(rank)];
  while (peer.reply_posting) s4u::this_actor::yield();
  if (!peer.reply || peer.reply_done) return;
  watched = rank;
  replied->acquire();
}

void SimGridInbox::State::wake(int rank) {
  arrived.insert(rank);
  if (!rank_waiting) return;
  rank_waiting = false;
  first = rank;
  arrival->release();
}

SimGridInbox::SimGridInbox(SimGridMessages& messages, int peers)
    : messages_(&messages), state_(std::make_shared<State>(messages, peers)) {}

void SimGridInbox::post(int from) {
  if (from < 0 || static_cast<std::size_t>(from) >= state_->peers.size()) {
    throw std::out_of_range("inbox receive from rank " + std::to_string(from));
  }
  State::Peer& peer = state_->peers[static_cast<std::size_t>(from)];
  if (peer.payload) throw std::logic_error("a second open receive from rank " + std::to_string(from));
  peer.payload = std::make_unique<comm::Buffer*>(nullptr);
  peer.posted_at = s4u::Engine::get_clock();
  state_->open_since.insert(peer.posted_at);
  peer.receive_handed = true;
  if (peer.waiter) {
    if (State::may_receive(peer)) peer.waiter->resume();
    return;
  }
  peer.waiter = s4u::Actor::create(s4u::this_actor::get_name() + "/from-" + std::to_string(from),
                                   s4u::this_actor::get_host(), [state = state_, from] { state->serve(from); });
}

std::optional<Arrival> SimGridInbox::next() {
  State& state = *state_;
  if (state.open_since.empty()) return std::nullopt;
  // The waiters of messages that completed at this instant run before the rank looks at what has arrived.
  s4u::this_actor::yield();
  int from = 0;
  if (!state.arrived.empty()) {
    from = *state.arrived.begin();
  } else {
    state.rank_waiting = true;
    state.arrival->acquire();
    from = state.first;
  }
  state.arrived.erase(from);
  State::Peer& peer = state.peers[static_cast<std::size_t>(from)];
  // As a wait on every open receive: the time since the earliest was opened is communication or waiting.
  const double since = std::min(s4u::Engine::get_clock(), *state.open_since.begin());
  state.open_since.erase(state.open_since.find(peer.posted_at));
  messages_->account(since, {peer.receive});
  peer.receive = nullptr;
  comm::Buffer message = std::move(*std::unique_ptr<comm::Buffer>(*peer.payload));
  peer.payload.reset();
  peer.awaiting_reply = true;
  return Arrival{from, std::move(message)};
}

void SimGridInbox::reply(int to, comm::Buffer contents) {
  State::Peer& peer = state_->peers.at(static_cast<std::size_t>(to));
  state_->wait_reply(to);
  if (peer.reply) messages_->account(peer.reply_posted_at, {peer.reply});
  peer.reply_handed = std::move(contents);
  peer.reply_posting = true;
  peer.reply_posted_at = s4u::Engine::get_clock();
  peer.awaiting_reply = false;
  peer.waiter->resume();
}

void SimGridInbox::close() {
  for (std::size_t rank = 0; rank < state_->peers.size(); ++rank) {
    state_->wait_reply(static_cast<int>(rank));
    const State::Peer& peer = state_->peers[rank];
    if (peer.reply) messages_->account(peer.reply_posted_at, {peer.reply});
  }
  state_->closed = true;
  // The waiters hold the state, so it holds none of them once they are let go: a waiter's actor would
  // otherwise keep the state alive, and the state the actor, past the simulation's end.
  for (State::Peer& peer : state_->peers) {
    if (!peer.waiter) continue;
    peer.waiter->resume();
    peer.waiter = nullptr;
    peer.receive = nullptr;
    peer.reply = nullptr;
  }
}

}  // namespace dtsim::runtime
