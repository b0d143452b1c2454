#pragma once
// `network_model: analytical`: the timing-only collectives, timed for a whole group at once.
// Every rank of a group reaches its phase (a ring phase of the group, or of one of its subgroups, which all
// run theirs at the same place), says where its rounds go, and waits; when the last rank is there, the
// phase starts for all: one round is every rank's flow started together under max-min sharing of the links
// (topology::fluid_completion_times), and the phase takes `rounds` such rounds. No message of the phase
// goes through SimGrid, so a phase costs each rank one wait instead of a message per round.
//
// Point-to-point messages (a pipeline's activations and their gradients) are timed by it too: each moves
// as a flow on its route from the moment both its sender and its receiver have posted it, as on a SimGrid
// mailbox, alone or with the messages named joint with it (every replica's n-th message between the same two
// stages), and no message of it goes through SimGrid either.
//
// A collective given as steps (enter_steps) is timed the same way, each message posted when its sender and its
// receiver are done with their previous step; past kFluidEveryToEveryRanks ranks, every-to-every steps (the
// direct algorithms) are timed from the links' loads instead (topology/every_to_every_loads.hpp).
//
// What this leaves out: a phase's or a message's flows do not contend with other phases, other messages or
// other traffic (background traffic), and the ranks start each phase together where, message by message, a
// rank starts its rounds when its neighbours are ready. In a cluster run, other jobs' phases and messages are
// the exception: each phase or message, timed alone, then shares the links with theirs (share_links,
// link_sharing.hpp).

#include "sim/comm/transport.hpp"
#include "sim/runtime/network/link_sharing.hpp"
#include "sim/topology/every_to_every_loads.hpp"
#include "sim/topology/fluid_flows.hpp"
#include "sim/topology/link_traffic.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_graph.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace dtsim::runtime {

/// Every-to-every steps of more ranks than this are timed from the links' loads, within -15% to +1% of the fluid
/// model (EveryToEveryLoads tests): the fluid model's p(p-1) flows cost some 0.6 s a step at 64 ranks (two
/// expert groups of 64 exchanging DeepSeek-V3's tokens, measured here), and a mixture's training step runs
/// thousands of all-to-alls.
inline constexpr int kFluidEveryToEveryRanks = 16;

/// How flows that move at once share the links: under max-min fairness (`network_model: analytical`), or not
/// at all, each timed as if alone on its route (`closed_form`: topology/uncontended_flows.hpp).
enum class FlowSharing { MaxMin, None };

class AnalyticalNetwork {
 public:
  /// `graph` and `routes` must outlive it.
  AnalyticalNetwork(const topology::TopologyGraph& graph, const topology::RoutingTable& routes,
                    FlowSharing sharing = FlowSharing::MaxMin);

  /// When a phase starts and ends.
  struct Phase {
    double start = 0.0;
    double end = 0.0;
    /// Under share_links: the transfer it is among other jobs' (`end` is then when it would end alone, until
    /// finished() says when it did); null when it meets none or moves no bytes.
    std::shared_ptr<LinkSharing::Transfer> shared;
  };

  /// Shares the links with other jobs' networks, as job `job` of `sharing` (which must outlive it): each phase
  /// and message is timed alone, then begun there. Call before the first phase.
  void share_links(LinkSharing& sharing, int job) {
    links_ = &sharing;
    job_ = job;
  }
  /// Blocks the calling actor until `phase` (from any of the calls below) ends; returns it with its end.
  Phase finished(Phase phase);

  /// One message of a phase: `bytes` from host `from` to host `to` (host numbers: workers by rank, then
  /// servers).
  struct Send {
    int from = 0;
    int to = 0;
    double bytes = 0.0;
  };

  /// Rank `rank` of group `group` (of `ranks` ranks) enters its `index`-th phase: `rounds` rounds, in each of
  /// which it sends `sends` (none: it sits the phase out). Blocks the calling actor until every rank of the
  /// group has entered it; returns the phase's start (the last arrival) and end (the caller waits until then).
  /// Every rank's bytes (and every replica's copy of them, see set_replicas) are added to `traffic` (null:
  /// none) when the phase starts, so that a reading of the links' bytes never holds part of a phase,
  /// whichever rank is resumed first at its end.
  Phase enter(const std::string& group, int ranks, std::uint64_t index, int rank, std::span<const Send> sends,
              int rounds, topology::LinkTraffic* traffic);

  /// Group `group` of the `groups` groups that meet as `meeting` enters its `index`-th phase, its ranks
  /// (`ranks` of them, hosts `host_of_rank`) behaving alike and simulated by one standing for all (see
  /// mirrored_ranks.hpp): every rank sends `rounds` rounds of `bytes` where `phase` says. As enter(); the
  /// bytes are not counted (count_for_all() does).
  Phase enter_for_group(const std::string& meeting, int groups, std::uint64_t index, int group, int ranks,
                        std::span<const int> host_of_rank, const comm::RingSet& phase, double bytes, int rounds);

  /// As enter_for_group, by a rank standing for several groups of the meeting (`groups`, each the host numbers of its
  /// `ranks` ranks; see mirrored_ranks.hpp): it enters as `entrant` of the `entrants` ranks that meet so, for all of
  /// them at once.
  Phase enter_for_groups(const std::string& meeting, int entrants, std::uint64_t index, int entrant, int ranks,
                         std::span<const std::vector<int>> groups, const comm::RingSet& phase, double bytes,
                         int rounds);
  /// start_for_all() of `groups` (each the host numbers of its `ranks` ranks), groups that behave alike and are each
  /// timed alone: the phase ends when the slowest group's does. Not under share_links (a run of several jobs
  /// simulates every rank).
  Phase start_for_groups(int ranks, std::span<const std::vector<int>> groups, const comm::RingSet& phase, double bytes,
                         int rounds);
  /// A collective given as steps (as enter_steps), entered now by every rank of each of `groups` (each the host
  /// numbers of its ranks; groups that behave alike, each timed alone), rank r running `steps[r]`; ends when the
  /// last rank of the slowest group ends. Every group's messages are counted in `traffic` (null: none) on their own
  /// routes. Not under share_links.
  Phase steps_for_groups(std::span<const std::vector<int>> groups, const std::vector<std::vector<comm::Step>>& steps,
                         double bytes_per_element, topology::LinkTraffic* traffic);

  /// `entrants` ranks standing for the same groups together (S4uTransport::stand_for) enter their `index`-th phase
  /// under `name`: blocks until all have entered; then the last one times the phase for all (`time`, which counts
  /// its bytes too) and every one gets that phase.
  Phase meet(const std::string& name, int entrants, std::uint64_t index, const std::function<Phase()>& time);

  /// Ranks standing for others, replica by replica (see mirrored_ranks.hpp): `copies[h]` are the host numbers
  /// host h stands for, itself first (empty: none, or h is not simulated). A point-to-point message then
  /// moves together with its copy between each pair of counterparts (the i-th host of each side's copies)
  /// and takes as long as the slowest copy; every copy's bytes are counted on the links, of phases too.
  void set_replicas(std::vector<std::vector<int>> copies) { replicas_ = std::move(copies); }

  /// Rank `rank` (on host `host`) of group `group` enters its `index`-th phase, a collective given as its own
  /// steps (comm::Step, peers by rank in the group). Blocks until every rank of the group has entered; then
  /// every rank's messages are timed together, each posted when both its sender and its receiver have
  /// reached its step (entered the phase, and finished their previous steps), as message by message, under
  /// max-min sharing of the links. Returns this rank's arrival and its end (its last step done, and not
  /// before the last arrival: the time is computed then). Every message's bytes go to `traffic` (null: none)
  /// once the last rank has entered.
  Phase enter_steps(const std::string& group, int ranks, std::uint64_t index, int rank, int host,
                    std::span<const comm::Step> steps, double bytes_per_element, topology::LinkTraffic* traffic);

  /// The duration of a phase that every rank of a group of `ranks` enters at the same moment, timed from
  /// one of them without waiting for the others (ranks that behave alike, simulated once: see
  /// mirrored_ranks.hpp): `phase` says where each rank sends `rounds` rounds of `bytes`, `host_of_rank` is
  /// each rank's host number (empty: the rank itself).
  double phase_for_all(int ranks, std::span<const int> host_of_rank, const comm::RingSet& phase, double bytes,
                       int rounds);
  /// Such a phase, started now: its start and its end alone (finished() waits for its end among other jobs').
  Phase start_for_all(int ranks, std::span<const int> host_of_rank, const comm::RingSet& phase, double bytes,
                      int rounds);
  /// Counts the bytes of such a phase, every rank's, for the links; flush() adds them to a LinkTraffic.
  void count_for_all(int ranks, std::span<const int> host_of_rank, const comm::RingSet& phase, double bytes,
                     int rounds);
  /// One point-to-point message, shared by its sender's and its receiver's handles.
  struct Message {
    int from = -1;  ///< host numbers; -1 until the send is posted
    int to = -1;
    comm::Buffer data;
    double bytes = 0.0;
    double sent_at = -1.0;      ///< when the sender posted it; -1: not yet
    double received_at = -1.0;  ///< when the receiver posted its receive; -1: not yet
    Phase moved{-1.0, -1.0, nullptr};    ///< when it moved: set once both sides have posted
    std::string joint;          ///< the messages it moves with (see post_send); empty: alone
    int joint_size = 0;
    std::vector<simgrid::s4u::ActorPtr> waiting;
  };
  /// Posts `data` from host `from` to host `to` on `channel` (a sender-receiver pair's channel: messages on
  /// one channel meet the receives posted on it in order). Its bytes go to `traffic` (null: none) now, as a
  /// SimGrid message's do when it is posted.
  /// With a `joint` name, the message moves together with the other `joint_size` - 1 messages posted under
  /// that name (the same message of every replica of a pipeline, which runs in step with the others): once
  /// all of them have both sides posted, they share the links under max-min, as they do message by message.
  std::shared_ptr<Message> post_send(const std::string& channel, int from, int to, comm::Buffer data,
                                     topology::LinkTraffic* traffic, std::string joint = {}, int joint_size = 0);
  /// Posts a receive on `channel`.
  std::shared_ptr<Message> post_recv(const std::string& channel);
  /// Blocks the calling actor until `message` has arrived (both sides posted, then its flow's time alone on
  /// its route); returns when it moved.
  Phase wait(Message& message);
  /// The name of host number `host` (workers by rank, then servers).
  [[nodiscard]] const std::string& host_name(int host) const;

  /// Adds the bytes counted by count_for_all() since the last flush to `traffic`. A phase's bytes are whole
  /// numbers, so their sums are exact: adding them later, pattern by pattern, gives the same totals as adding
  /// each rank's message as it arrives.
  void flush(topology::LinkTraffic& traffic);

 private:
  struct Meeting {
    std::vector<std::vector<topology::Flow>> flows;                ///< by rank: a round's
    std::vector<std::vector<std::tuple<int, int, double>>> sent;  ///< by rank: host numbers, bytes of all rounds
    int arrived = 0;
    int rounds = 0;
    Phase phase;
    bool timed = false;
    std::vector<simgrid::s4u::ActorPtr> waiting;  ///< suspended until the last rank arrives
  };

  /// A collective of steps entered at once by every rank of a group (steps_for_groups): how long it takes, and the
  /// bytes it puts on each link direction.
  struct StepsTiming {
    double span = 0.0;
    std::vector<std::pair<topology::Hop, double>> bytes_on;
  };
  /// The StepsTiming of ranks on `hosts` running `steps` (by rank), computed once for each.
  const StepsTiming& steps_timing(const std::vector<int>& hosts, const std::vector<std::vector<comm::Step>>& steps,
                                  double bytes_per_element);

  /// A collective of steps met by every rank (see enter_steps).
  struct StepsMeeting {
    std::vector<int> hosts;                     ///< by rank
    std::vector<double> arrivals;               ///< by rank
    std::vector<std::vector<comm::Step>> steps;  ///< by rank
    int arrived = 0;
    bool timed = false;
    std::vector<double> ends;  ///< by rank
    std::shared_ptr<LinkSharing::Transfer> shared;
    std::vector<simgrid::s4u::ActorPtr> waiting;
  };
  /// The messages of a channel not matched yet: sends waiting for receives, or receives waiting for sends.
  struct Channel {
    std::deque<std::shared_ptr<Message>> sends;
    std::deque<std::shared_ptr<Message>> receives;
  };
  /// The message a send (`sending`) or a receive posted on `channel` is: the oldest one of the other side
  /// waiting there, or a new one left waiting.
  std::shared_ptr<Message> match(const std::string& channel, bool sending);
  /// Both sides of `message` have posted, now: it moves (alone, or once the messages it moves with are
  /// ready too), and whoever waits for it is woken at its end.
  void ready(const std::shared_ptr<Message>& message);
  /// Times `messages`, all ready, together from now.
  void start_moving(const std::vector<std::shared_ptr<Message>>& messages);

  /// Times a steps meeting whose ranks have all arrived, at `now`: fills its ends, counts its bytes.
  /// With `copies`, each message stands for every replica's copy of it too (set_replicas), so the links' loads do
  /// not time it; without (a group of real hosts timed apart, steps_timing, which counts its own bytes), they may.
  void time_steps(StepsMeeting& meeting, double now, double bytes_per_element, topology::LinkTraffic* traffic,
                  bool copies = true);
  /// Past kFluidEveryToEveryRanks ranks, a meeting of every-to-every steps only, each rank sending the same
  /// bytes in a step (the direct algorithms), is timed from the loads of the links
  /// (topology/every_to_every_loads.hpp), as time_steps() does; returns false, doing nothing, for any other.
  bool time_every_to_every(StepsMeeting& meeting, double now, double bytes_per_element, topology::LinkTraffic* traffic,
                           bool copies);

  /// Calls `each(from, to)` for the message from host `from` to host `to` and every replica's copy of it.
  template <class Each>
  void for_each_copy(int from, int to, Each each) const {
    const auto at = [&](int host) -> const std::vector<int>* {
      return std::cmp_less(host, replicas_.size()) && !replicas_[static_cast<std::size_t>(host)].empty()
                 ? &replicas_[static_cast<std::size_t>(host)]
                 : nullptr;
    };
    const std::vector<int>* senders = at(from);
    const std::vector<int>* receivers = at(to);
    if (senders == nullptr || receivers == nullptr || senders->size() != receivers->size()) {
      each(from, to);
      return;
    }
    for (std::size_t copy = 0; copy < senders->size(); ++copy) each((*senders)[copy], (*receivers)[copy]);
  }

  /// When each of `flows` arrives, shared as `sharing_` says.
  [[nodiscard]] std::vector<double> completion_times(std::span<const topology::Flow> flows) const;
  /// Each flow's time, for flows started together (0 for one from a host to itself).
  /// Cached: a job repeats its phases and its pipeline's messages.
  const std::vector<double>& flow_times(const std::vector<topology::Flow>& flows);
  /// One round's time: the last arrival of the flows started together.
  double round_time(const std::vector<topology::Flow>& flows);

  /// Under share_links: begins a transfer that alone ends at `alone_end`, `latency_s` of it latency, moving
  /// `bytes`; null otherwise.
  std::shared_ptr<LinkSharing::Transfer> share(double alone_end, double latency_s, const DirectionLoads& loads);
  /// Adds a flow of `bytes` from host number `from` to host number `to`, and every replica's copy, to `out` on
  /// their routes.
  void add_flow(DirectionLoads& out, int from, int to, double bytes) const;
  /// The latency of the flow of `flows`, started together, that arrives last.
  double critical_latency(const std::vector<topology::Flow>& flows);
  /// The flows of a phase's round: `bytes` between each pair of host numbers.
  [[nodiscard]] std::vector<topology::Flow> flows_of(const std::vector<std::pair<int, int>>& pairs, double bytes) const;

  /// Every rank's (from, to) host numbers in a phase of a group, computed once per group and pattern.
  const std::vector<std::pair<int, int>>& pairs_of(int ranks, std::span<const int> host_of_rank,
                                                   const comm::RingSet& phase);

  const topology::TopologyGraph* graph_;
  const topology::RoutingTable* routes_;
  FlowSharing sharing_;
  LinkSharing* links_ = nullptr;  ///< see share_links
  int job_ = 0;
  std::vector<topology::NodeId> hosts_;
  std::vector<std::vector<int>> replicas_;  ///< see set_replicas
  std::map<std::pair<std::string, std::uint64_t>, Meeting> meetings_;
  std::map<std::pair<std::string, std::uint64_t>, StepsMeeting> steps_meetings_;
  std::map<std::string, Channel> channels_;
  /// By the hosts of a group, rank by rank: its every-to-every pattern, kept for its next collectives.
  std::map<std::vector<topology::NodeId>, std::unique_ptr<topology::EveryToEveryLoads>> every_to_every_;
  std::map<std::string, std::vector<std::shared_ptr<Message>>> joints_;  ///< ready messages, by joint name
  std::map<std::vector<std::tuple<topology::NodeId, topology::NodeId, double>>, std::vector<double>> flow_times_;
  /// By (rings, ranks, shift, host table): the rings are kept alive here, so that their address names them.
  using PatternKey = std::tuple<const void*, int, int, const int*>;
  struct Pattern {
    std::shared_ptr<const comm::RingSet::Rings> rings;
    std::vector<std::pair<int, int>> pairs;
    std::map<double, double> round_s;  ///< by bytes
    /// Each link direction the pattern's flows cross, with how many cross it; computed at the first flush.
    std::vector<std::pair<topology::Hop, double>> crossings;
    double unflushed_bytes = 0.0;  ///< of each flow, since the last flush
  };
  std::map<PatternKey, Pattern> patterns_;
  std::map<std::vector<double>, StepsTiming> steps_timings_;  ///< see steps_timing, by its inputs
};

}  // namespace dtsim::runtime
