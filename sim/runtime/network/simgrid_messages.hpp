#pragma once
// Messages timed by SimGrid one by one: each is a SimGrid communication between two mailboxes over the routed
// links, and a timing-only ring phase runs round by round, or as two transfers where the phase shortcut
// approves it (S4uTransport::shift_rounds).

#include "sim/runtime/network/message_timing.hpp"
#include "sim/runtime/network/s4u_transport.hpp"

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <cstdint>
#include <unordered_map>

namespace dtsim::runtime {

class SimGridMessages final : public MessageTiming {
 public:
  /// The messages of `owner`, which outlives this.
  explicit SimGridMessages(S4uTransport& owner) : owner_(&owner) {}

  void send(int to, comm::Buffer data) override;
  comm::Buffer recv(int from) override;
  comm::Buffer send_recv(int to, comm::Buffer data, int from) override;
  std::vector<comm::Buffer> exchange(std::span<const int> to, std::vector<comm::Buffer> data,
                                     std::span<const int> from) override;
  std::unique_ptr<comm::Pending> post_send(int to, comm::Buffer data, int tag) override;
  std::unique_ptr<comm::Pending> post_recv(int from, int tag) override;
  std::unique_ptr<MessageInbox> open_inbox() override;
  void shift_rounds(int to, int from, std::size_t elements, int rounds) override;
  void group_rounds(int to, int from, std::size_t elements, int rounds, const comm::RingSet& phase) override {
    owner_->comm::Transport::group_rounds(to, from, elements, rounds, phase);
  }
  void run_steps(std::span<const comm::Step> steps) override { owner_->comm::Transport::run_steps(steps); }
  [[nodiscard]] bool times_phases_at_once() const override { return false; }

  /// Reports the time from `posted_at` (or from the last report, if later) to now as communication or wait.
  void account(double posted_at, const std::vector<simgrid::s4u::CommPtr>& comms);

 private:
  friend class SimGridInbox;

  simgrid::s4u::Mailbox* mailbox(int from, int to, int tag);
  simgrid::s4u::CommPtr start_send(int to, comm::Buffer data, int tag = 0);
  simgrid::s4u::CommPtr start_recv(int from, comm::Buffer** payload, int tag = 0);
  /// Reports each received message among `comms` (complete) to observers that want messages.
  void report_messages(const std::vector<simgrid::s4u::CommPtr>& comms);

  S4uTransport* owner_;
  // Resolved on first use, for the peers and channels this rank uses only: a table over all ranks would
  // cost O(p^2) memory over the group. Keyed by (peer, tag, direction).
  std::unordered_map<std::uint64_t, simgrid::s4u::Mailbox*> mailboxes_;
};

}  // namespace dtsim::runtime
