#pragma once
// comm::Transport of one rank of a group in a SimGrid run: its messages timed by SimGrid over the routed links,
// or by the run's analytical network.

#include "sim/comm/transport.hpp"
#include "sim/comm/values_apart.hpp"
#include "sim/runtime/network/analytical_network.hpp"
#include "sim/runtime/network/message_timing.hpp"
#include "sim/runtime/network/phase_shortcut.hpp"
#include "sim/runtime/observe/run_observer.hpp"
#include "sim/topology/link_traffic.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dtsim::runtime {

/// Under the analytical network, where a group's collectives are timed together with those of sibling groups
/// that run the same collectives at the same moments: one meeting of `size` ranks called `name`, in which the
/// group's ranks come from `offset` on. A point-to-point message moves with the same message of every group of
/// the meeting (size / the group's size of them). An empty name: the group meets alone.
struct AnalyticalMeeting {
  std::string name;
  int size = 0;
  int offset = 0;
};

/// What every transport of a run shares: the links' byte counts (null: none counted), the routes (for their
/// latencies, when no bytes are counted: a collective benchmark), and the pieces of its network backend
/// (network_backend.hpp): the network that times phases at once (null: every message is SimGrid's), or under
/// SimGrid the phase shortcut a run of equal workers may take (null: every round simulated). Each must outlive
/// the transports.
struct RunNetwork {
  topology::LinkTraffic* traffic = nullptr;
  const topology::LinkTraffic* routes = nullptr;
  AnalyticalNetwork* analytical = nullptr;
  const PhaseShortcut* shortcut = nullptr;
  /// Where each group's ranks meet to compute their collectives' values apart from the messages (values_apart.hpp);
  /// null: values go by message.
  comm::ValueMeetings* values = nullptr;
  /// Put before every group's name: where several jobs share one engine (cluster_run.hpp), "<job>/" keeps each
  /// job's mailboxes its own.
  std::string prefix{};
};

/// One group's endpoint for one of its ranks: the group's name (its mailboxes' prefix), this rank, the group's
/// size, and how it sits on the cluster. Spans must outlive the transport.
struct GroupSpec {
  std::string name;
  int rank = 0;
  int size = 0;
  /// Which ranks share a machine (for the collectives); empty: none known.
  std::span<const int> machines{};
  /// The host number of each rank, when ranks are not host numbers (a subgroup, an elastic job's survivors);
  /// empty: rank r is host r (workers by rank, then servers).
  std::span<const int> hosts{};
  /// Timing-only ring phases that may be taken as two transfers (null: none).
  const PhaseShortcut* shortcut = nullptr;
  /// Under a network that times phases at once, the groups this one's phases are timed with (see
  /// AnalyticalMeeting), and whether this rank stands for every rank of its group (mirrored_ranks.hpp).
  AnalyticalMeeting meeting{};
  bool mirrored = false;
};

/// One rank's endpoint: the group, the rank's meter and hosts, and how its messages are timed (MessageTiming:
/// SimGrid's mailboxes, "<group>/<from>-><to>" with "#<tag>" for channels other than 0, or the run's analytical
/// network when it has one). Time spent waiting in each call is split into communication (some transfer of
/// this call is moving bytes) and wait (none is: the peer has not posted its side yet); both, and the bytes
/// sent, are reported to `meter`, each instant counted once even when posted messages overlap. With a
/// `shortcut`, timing-only ring phases it approves take two transfers instead of one per round.
class S4uTransport final : public comm::Transport {
 public:
  /// Rank `group.rank` of `group` on the run's `network`, its time reported to `meter`.
  S4uTransport(const RunNetwork& network, GroupSpec group, Meter meter);
  ~S4uTransport() override;
  S4uTransport(const S4uTransport&) = delete;
  S4uTransport& operator=(const S4uTransport&) = delete;

  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return size_; }
  [[nodiscard]] std::span<const int> machines() const override { return machines_; }
  /// What its communication carries from now on (ZeRO's gathers on the replicas' group are labelled apart).
  void carry(Traffic traffic) { meter_ = meter_.carrying(traffic); }
  /// Where its time is reported: a collective overlapped with compute reports to a lane of its own.
  [[nodiscard]] const Meter& meter() const { return meter_; }
  void report_to(Meter meter) { meter_ = std::move(meter); }
  /// Under a network that times phases at once, this group's collectives are timed in `meeting` (see
  /// AnalyticalMeeting).
  void set_meeting(AnalyticalMeeting meeting) { meeting_ = std::move(meeting); }
  /// This rank stands for every rank of its group, which behave alike and are not simulated (see
  /// mirrored_ranks.hpp): each phase is timed from what every rank sends, without a meeting.
  void set_mirrored(bool mirrored) { mirrored_ = mirrored; }
  /// This rank stands for every rank of `groups`, groups of its own kind (its own first, each as the host numbers
  /// of its ranks in their order), which behave alike and are not simulated (see mirrored_ranks.hpp): each phase
  /// is timed from what every rank of its group sends, and every group's bytes are counted. Where `entrants` ranks
  /// of its group stand for the groups together (on the experts' own grid, one for each tensor rank), each phase
  /// starts when all of them have entered it and is timed and counted once. `groups` must outlive the transport.
  void stand_for(std::span<const std::vector<int>> groups, int entrants = 1) {
    mirrored_ = true;
    stood_for_ = groups;
    entrants_ = entrants;
  }
  /// Whether this rank stands for every rank of its group (set_mirrored, stand_for).
  [[nodiscard]] bool mirrored() const { return mirrored_; }
  /// What rank `rank` of a group runs as steps, for a rank that stands for its group.
  using StepsOf = std::function<std::vector<comm::Step>(int rank)>;
  /// Where this rank stands for others, the steps of its group's other ranks in the next collective given as steps
  /// (run_steps()): each is timed from every rank's.
  void set_steps_of_others(StepsOf steps_of) { steps_of_others_ = std::move(steps_of); }
  void send(int to, comm::Buffer data) override { timing_->send(to, std::move(data)); }
  comm::Buffer recv(int from) override { return timing_->recv(from); }
  comm::Buffer send_recv(int to, comm::Buffer data, int from) override {
    return timing_->send_recv(to, std::move(data), from);
  }
  std::vector<comm::Buffer> recv_from_each(std::span<const int> from) override { return exchange({}, {}, from); }
  void send_to_each(std::span<const int> to, std::vector<comm::Buffer> data) override {
    static_cast<void>(exchange(to, std::move(data), {}));
  }
  std::vector<comm::Buffer> exchange(std::span<const int> to, std::vector<comm::Buffer> data,
                                     std::span<const int> from) override {
    return timing_->exchange(to, std::move(data), from);
  }
  std::unique_ptr<comm::Pending> post_send(int to, comm::Buffer data, int tag) override {
    return timing_->post_send(to, std::move(data), tag);
  }
  std::unique_ptr<comm::Pending> post_recv(int from, int tag) override { return timing_->post_recv(from, tag); }
  /// Under SimGrid, where the shortcut approves the shift: the first round as it is, which measures a round's
  /// time T under the network model, then the other rounds' bytes as one transfer, then a pause that brings
  /// those rounds to (rounds - 1) x T, which is what they take one by one when every round is identical (on
  /// an uncontended route a transfer of n bytes takes L + n/B, so the pause is the latency of rounds - 2).
  void shift_rounds(int to, int from, std::size_t elements, int rounds) override {
    timing_->shift_rounds(to, from, elements, rounds);
  }
  void group_rounds(int to, int from, std::size_t elements, int rounds, const comm::RingSet& phase) override {
    timing_->group_rounds(to, from, elements, rounds, phase);
  }
  /// With the analytical network, the collective is timed for the whole group at once (every rank's steps,
  /// see AnalyticalNetwork::enter_steps); otherwise its messages go one by one.
  void run_steps(std::span<const comm::Step> steps) override { timing_->run_steps(steps); }
  [[nodiscard]] bool times_phases_at_once() const override { return timing_->times_phases_at_once(); }
  /// Receives from many of the group's ranks, taken as they arrive (see message_inbox.hpp).
  [[nodiscard]] std::unique_ptr<MessageInbox> open_inbox() { return timing_->open_inbox(); }
  [[nodiscard]] double now() const override;
  /// From the run network's traffic or routes; 0 without.
  [[nodiscard]] double latency_to(int peer) const override {
    return routes_ != nullptr ? routes_->latency(host(rank_), host(peer)) : 0.0;
  }
  /// Sleeps, and reports the time as communication (the library's time is part of the collective's).
  void spend(double seconds) override;
  /// The group's meeting in the run's ValueMeetings, where it has them; null for a rank standing for others.
  [[nodiscard]] comm::ValueMeeting* value_meeting() override { return value_meeting_; }

 private:
  friend class SimGridMessages;
  friend class AnalyticalMessages;

  /// Throws std::out_of_range for a rank outside the group or a channel outside 0..65535.
  void check_peer(int peer, int tag) const;
  /// "<group>/<from>-><to>", with "#<tag>" for channels other than 0: a mailbox's name, or the analytical
  /// network's channel.
  [[nodiscard]] std::string channel(int from, int to, int tag) const;
  [[nodiscard]] int host(int rank) const { return hosts_.empty() ? rank : hosts_[static_cast<std::size_t>(rank)]; }

  std::string group_;
  int rank_;
  int size_;
  Meter meter_;
  const PhaseShortcut* shortcut_;
  std::span<const int> machines_;
  topology::LinkTraffic* traffic_ = nullptr;
  const topology::LinkTraffic* routes_ = nullptr;
  std::span<const int> hosts_;
  bool mirrored_ = false;
  std::span<const std::vector<int>> stood_for_;  ///< see stand_for(); empty: its own group alone
  int entrants_ = 1;                             ///< the ranks standing for stood_for_ together (see stand_for())
  StepsOf steps_of_others_;                      ///< see set_steps_of_others()
  AnalyticalMeeting meeting_;
  std::unique_ptr<MessageTiming> timing_;
  comm::ValueMeeting* value_meeting_ = nullptr;
};

}  // namespace dtsim::runtime
