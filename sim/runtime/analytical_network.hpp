#pragma once
// `network_model: analytical`: the timing-only ring phases of collectives, timed for a whole group at once.
// Every rank of a group reaches its phase (a ring phase of the group, or of one of its subgroups, which all
// run theirs at the same place), says where its rounds go, and waits; when the last rank is there, the
// phase starts for all: one round is every rank's flow started together under max-min sharing of the links
// (topology::fluid_completion_times), and the phase takes `rounds` such rounds. No message of the phase
// goes through SimGrid, so a phase costs each rank one wait instead of a message per round.
//
// What this leaves out: the phase's flows do not contend with other traffic (SimGrid's messages, background
// traffic), and the ranks start each phase together where, message by message, a rank starts its rounds when
// its neighbours are ready.

#include "sim/comm/transport.hpp"
#include "sim/topology/fluid_flows.hpp"
#include "sim/topology/link_traffic.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_graph.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace dtsim::runtime {

class AnalyticalNetwork {
 public:
  /// `graph` and `routes` must outlive it.
  AnalyticalNetwork(const topology::TopologyGraph& graph, const topology::RoutingTable& routes);

  /// When a phase starts and ends.
  struct Phase {
    double start = 0.0;
    double end = 0.0;
  };

  /// One message of a phase: `bytes` to host `to` (host numbers: workers by rank, then servers).
  struct Send {
    int to = 0;
    double bytes = 0.0;
  };

  /// Rank `rank` of group `group` (of `ranks` ranks) enters its `index`-th phase: `rounds` rounds, in each of
  /// which it sends `sends` from host `from` (none: it sits the phase out). Blocks the calling actor until every rank of the group
  /// has entered it; returns the phase's start (the last arrival) and end (the caller waits until then).
  /// Every rank's bytes are added to `traffic` (null: none) when the phase starts, so that a reading of the
  /// links' bytes never holds part of a phase, whichever rank is resumed first at its end.
  Phase enter(const std::string& group, int ranks, std::uint64_t index, int rank, int from, std::span<const Send> sends,
              int rounds, topology::LinkTraffic* traffic);

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
  /// Counts the bytes of such a phase, every rank's, for the links; flush() adds them to a LinkTraffic.
  void count_for_all(int ranks, std::span<const int> host_of_rank, const comm::RingSet& phase, double bytes,
                     int rounds);
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

  /// A collective of steps met by every rank (see enter_steps).
  struct StepsMeeting {
    std::vector<int> hosts;                     ///< by rank
    std::vector<double> arrivals;               ///< by rank
    std::vector<std::vector<comm::Step>> steps;  ///< by rank
    int arrived = 0;
    bool timed = false;
    std::vector<double> ends;  ///< by rank
    std::vector<simgrid::s4u::ActorPtr> waiting;
  };
  /// Times a steps meeting whose ranks have all arrived, at `now`: fills its ends, counts its bytes.
  void time_steps(StepsMeeting& meeting, double now, double bytes_per_element, topology::LinkTraffic* traffic);

  /// One round's time: the last arrival of the flows started together. Cached: a job repeats its phases.
  double round_time(const std::vector<topology::Flow>& flows);

  /// Every rank's (from, to) host numbers in a phase of a group, computed once per group and pattern.
  const std::vector<std::pair<int, int>>& pairs_of(int ranks, std::span<const int> host_of_rank,
                                                   const comm::RingSet& phase);

  const topology::TopologyGraph* graph_;
  const topology::RoutingTable* routes_;
  std::vector<topology::NodeId> hosts_;
  std::map<std::pair<std::string, std::uint64_t>, Meeting> meetings_;
  std::map<std::pair<std::string, std::uint64_t>, StepsMeeting> steps_meetings_;
  std::map<std::vector<std::tuple<topology::NodeId, topology::NodeId, double>>, double> rounds_;
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
};

}  // namespace dtsim::runtime
