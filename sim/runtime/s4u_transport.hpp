#pragma once
// comm::Transport over SimGrid mailboxes: every message is a SimGrid communication over the routed links.

#include "sim/comm/transport.hpp"
#include "sim/metrics/run_record.hpp"
#include "sim/runtime/phase_shortcut.hpp"

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <string>
#include <unordered_map>
#include <vector>

namespace dtsim::runtime {

/// One rank's endpoint. Mailbox "<group>/<from>-><to>" carries messages from rank `from` to rank `to`.
/// Time spent in each call is split into communication (some transfer of this call is moving bytes) and
/// wait (none is: the peer has not posted its side yet); both, and the bytes sent, go to `activity`.
/// With a `shortcut`, timing-only ring phases it approves take two transfers instead of one per round.
class S4uTransport final : public comm::Transport {
 public:
  S4uTransport(std::string group, int rank, int size, metrics::HostActivity& activity,
               const PhaseShortcut* shortcut = nullptr);

  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return size_; }
  void send(int to, comm::Buffer data) override;
  comm::Buffer recv(int from) override;
  comm::Buffer send_recv(int to, comm::Buffer data, int from) override;
  std::vector<comm::Buffer> recv_from_each(std::span<const int> from) override;
  void send_to_each(std::span<const int> to, std::vector<comm::Buffer> data) override;
  std::vector<comm::Buffer> exchange(std::span<const int> to, std::vector<comm::Buffer> data,
                                     std::span<const int> from) override;
  /// Where the shortcut approves the shift: the first round as it is, which measures a round's time T
  /// under the network model, then the other rounds' bytes as one transfer, then a pause that brings those
  /// rounds to (rounds - 1) x T, which is what they take one by one when every round is identical (on an
  /// uncontended route a transfer of n bytes takes L + n/B, so the pause is the latency of rounds - 2).
  void shift_rounds(int to, int from, std::size_t elements, int rounds) override;

 private:
  simgrid::s4u::Mailbox* outgoing(int to);
  simgrid::s4u::Mailbox* incoming(int from);
  simgrid::s4u::CommPtr post_send(int to, comm::Buffer data);
  void account(double posted_at, const std::vector<simgrid::s4u::CommPtr>& comms);

  std::string group_;
  int rank_;
  int size_;
  metrics::HostActivity* activity_;
  const PhaseShortcut* shortcut_;
  // Resolved on first use, for the peers this rank talks to only: a table over all ranks would cost
  // O(p^2) memory over the group.
  std::unordered_map<int, simgrid::s4u::Mailbox*> outgoing_;  ///< by destination rank
  std::unordered_map<int, simgrid::s4u::Mailbox*> incoming_;  ///< by source rank
};

}  // namespace dtsim::runtime
