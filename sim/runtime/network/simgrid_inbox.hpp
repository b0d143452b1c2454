#pragma once
// A rank's inbox under SimGrid. Each peer has a waiter, an actor of the rank's host that posts and waits for
// that peer's receives and the rank's replies to it (a SimGrid wait on one communication costs O(1)), and
// sets each message down for the rank. SimGrid's wait_any over every open receive registers and unregisters
// the waiting actor with each of them, and every communication an actor posts stays in its list of
// activities, which SimGrid scans whenever one of them ends: both O(p) a message. The order is wait_any's:
// the messages that completed before the rank asked, lowest sender first; otherwise the first to complete.

#include "sim/runtime/network/message_inbox.hpp"

#include <memory>

namespace dtsim::runtime {

class SimGridMessages;

class SimGridInbox final : public MessageInbox {
 public:
  /// An inbox of `messages`' rank, which outlives it, among `peers` ranks.
  SimGridInbox(SimGridMessages& messages, int peers);

  void post(int from) override;
  std::optional<Arrival> next() override;
  void reply(int to, comm::Buffer contents) override;
  void close() override;

  struct State;

 private:
  SimGridMessages* messages_;
  /// Shared with the waiters, which may outlive the inbox by a moment.
  std::shared_ptr<State> state_;
};

}  // namespace dtsim::runtime
