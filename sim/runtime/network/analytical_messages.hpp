#pragma once
// Messages and phases timed by the run's analytical network (analytical_network.hpp): a timing-only ring phase
// or a collective's steps are timed for the whole group at once when every rank has entered them, a message
// when both of its ends have posted it; a rank that stands for its group (mirrored_ranks.hpp) times each
// phase from what every rank sends.

#include "sim/runtime/network/message_timing.hpp"
#include "sim/runtime/network/s4u_transport.hpp"

#include <cstdint>
#include <unordered_map>

namespace dtsim::runtime {

class AnalyticalMessages final : public MessageTiming {
 public:
  /// The messages of `owner` on `network`, both outliving this.
  AnalyticalMessages(S4uTransport& owner, AnalyticalNetwork& network) : owner_(&owner), network_(&network) {}

  void send(int to, comm::Buffer data) override;
  comm::Buffer recv(int from) override;
  comm::Buffer send_recv(int to, comm::Buffer data, int from) override;
  std::vector<comm::Buffer> exchange(std::span<const int> to, std::vector<comm::Buffer> data,
                                     std::span<const int> from) override;
  std::unique_ptr<comm::Pending> post_send(int to, comm::Buffer data, int tag) override;
  std::unique_ptr<comm::Pending> post_recv(int from, int tag) override;
  /// Throws std::logic_error: the analytical network times no message SimGrid could wait for.
  std::unique_ptr<MessageInbox> open_inbox() override;
  void shift_rounds(int to, int from, std::size_t elements, int rounds) override;
  void group_rounds(int to, int from, std::size_t elements, int rounds, const comm::RingSet& phase) override;
  void run_steps(std::span<const comm::Step> steps) override;
  [[nodiscard]] bool times_phases_at_once() const override { return true; }

  /// Reports a message that moved over `moved`, posted at `posted_at`; `received` (null for a send) is
  /// reported to observers that want messages.
  void account(double posted_at, AnalyticalNetwork::Phase moved, const AnalyticalNetwork::Message* received);

 private:
  /// A phase: waits for the group, then for the phase's end; reports it as a transfer.
  void time_phase(int to, std::size_t elements, int rounds, const comm::RingSet& phase);
  /// A collective's `steps` (this rank's) by a rank standing for its group and others of its kind (stand_for): timed
  /// from every rank's steps (set_steps_of_others), every group's bytes counted.
  AnalyticalNetwork::Phase steps_for_all(std::span<const comm::Step> steps, double bytes_per_element);
  /// Waits from `arrived` until the end of `phase`, and reports the wait as a transfer.
  void wait_for_phase(double arrived, AnalyticalNetwork::Phase phase);

  S4uTransport* owner_;
  AnalyticalNetwork* network_;
  std::uint64_t phases_entered_ = 0;
  /// Under a meeting: messages posted so far, by (peer, tag), to name each one's joint messages.
  std::unordered_map<std::uint64_t, std::uint64_t> joint_messages_;
};

}  // namespace dtsim::runtime
