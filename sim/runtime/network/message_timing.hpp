#pragma once
// How a rank's transport times its messages and phases: SimGrid message by message (simgrid_messages.hpp),
// or a network that times phases at once (analytical_messages.hpp). The transport (s4u_transport.hpp) holds
// what both share, the group, its meter and its hosts, and hands every message to its timing; the network
// backend of the run decides which (network_backend.hpp).

#include "sim/comm/transport.hpp"
#include "sim/runtime/network/message_inbox.hpp"

#include <memory>
#include <span>
#include <vector>

namespace dtsim::runtime {

class MessageTiming {
 public:
  virtual ~MessageTiming() = default;

  virtual void send(int to, comm::Buffer data) = 0;
  virtual comm::Buffer recv(int from) = 0;
  virtual comm::Buffer send_recv(int to, comm::Buffer data, int from) = 0;
  virtual std::vector<comm::Buffer> exchange(std::span<const int> to, std::vector<comm::Buffer> data,
                                             std::span<const int> from) = 0;
  virtual std::unique_ptr<comm::Pending> post_send(int to, comm::Buffer data, int tag) = 0;
  virtual std::unique_ptr<comm::Pending> post_recv(int from, int tag) = 0;
  /// An inbox of this rank among its group's ranks (see message_inbox.hpp).
  virtual std::unique_ptr<MessageInbox> open_inbox() = 0;
  virtual void shift_rounds(int to, int from, std::size_t elements, int rounds) = 0;
  virtual void group_rounds(int to, int from, std::size_t elements, int rounds, const comm::RingSet& phase) = 0;
  virtual void run_steps(std::span<const comm::Step> steps) = 0;
  [[nodiscard]] virtual bool times_phases_at_once() const = 0;
};

}  // namespace dtsim::runtime
