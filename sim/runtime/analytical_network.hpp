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

#include "sim/topology/fluid_flows.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_graph.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <cstdint>
#include <map>
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

  /// Rank `rank` of group `group` (of `ranks` ranks) enters its `index`-th phase: `rounds` rounds of
  /// `bytes` from host `from` to host `to` (host numbers: workers by rank, then servers). Blocks the calling actor until every rank of the group
  /// has entered it; returns the phase's start (the last arrival) and end (the caller waits until then).
  Phase enter(const std::string& group, int ranks, std::uint64_t index, int rank, int from, int to, double bytes,
              int rounds);

 private:
  struct Meeting {
    std::vector<topology::Flow> flows;  ///< by rank
    int arrived = 0;
    int rounds = 0;
    Phase phase;
    bool timed = false;
    std::vector<simgrid::s4u::ActorPtr> waiting;  ///< suspended until the last rank arrives
  };

  /// One round's time: the last arrival of the flows started together. Cached: a job repeats its phases.
  double round_time(const std::vector<topology::Flow>& flows);

  const topology::TopologyGraph* graph_;
  const topology::RoutingTable* routes_;
  std::vector<topology::NodeId> hosts_;
  std::map<std::pair<std::string, std::uint64_t>, Meeting> meetings_;
  std::map<std::vector<std::tuple<topology::NodeId, topology::NodeId, double>>, double> rounds_;
};

}  // namespace dtsim::runtime
