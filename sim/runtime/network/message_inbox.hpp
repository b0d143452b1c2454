#pragma once
// A rank that serves many peers at once (a parameter-server shard) keeps one receive open from each, takes
// the messages in the order they arrive, and replies to each. Waiting on every open receive at every message
// cost O(p) a message, O(p^2) an iteration of p workers; an inbox gives the next message, and sends a reply,
// at a cost that does not grow with the peers.

#include "sim/comm/payload.hpp"

#include <optional>

namespace dtsim::runtime {

/// The next message an inbox gives: its sender and contents.
struct Arrival {
  int from = 0;
  comm::Buffer message;
};

class MessageInbox {
 public:
  virtual ~MessageInbox() = default;

  /// Opens a receive from `from` (channel 0), which must have none open. A peer sends its next message only
  /// after the reply to its last one.
  virtual void post(int from) = 0;
  /// Waits for the next message of those posted and closes its receive; nullopt when none is open. Several
  /// already arrived: the lowest sender first. None yet: the first to arrive.
  virtual std::optional<Arrival> next() = 0;
  /// Sends `to` its reply, after waiting for the previous reply to it (complete by then: `to` has sent since).
  virtual void reply(int to, comm::Buffer contents) = 0;
  /// Waits for the last reply to each peer, in rank order; then the inbox takes no more.
  virtual void close() = 0;
};

}  // namespace dtsim::runtime
