#pragma once
// Which ring-like phases of a group of ranks S4uTransport may simulate as one transfer instead of round by
// round: those whose rounds are provably identical (topology::uniform_shift). Only valid while the group's
// collective is the only traffic on the network, so only collective benchmarks hand one out.

#include "sim/runtime/setup/training_setup.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_graph.hpp"

#include <map>
#include <vector>

namespace dtsim::runtime {

class PhaseShortcut {
 public:
  /// `rank_nodes[r]` is rank r's host; `reverse_traffic` as in topology::uniform_shift.
  PhaseShortcut(const topology::TopologyGraph& graph, const topology::RoutingTable& routes,
                std::vector<topology::NodeId> rank_nodes, bool reverse_traffic);

  /// Whether a phase in which every rank r sends to r + shift may be shortened. Computed once per shift.
  [[nodiscard]] bool applies(int shift) const;

 private:
  const topology::TopologyGraph* graph_;
  const topology::RoutingTable* routes_;
  std::vector<topology::NodeId> rank_nodes_;
  bool reverse_traffic_;
  // Actors run one at a time in SimGrid, so lazily filling the cache needs no lock.
  mutable std::map<int, bool> cache_;
};

/// Whether a run trained for real computes its collectives' values apart from their messages (values_apart.hpp).
[[nodiscard]] bool values_apart_in(const scenario::Scenario& scenario, const TrainingSetup& setup);

/// Whether the run's premise lets identical ring rounds be simulated as one transfer (its allreduce alone on the
/// network, every rank entering it at once): the run then hands its transports a PhaseShortcut.
[[nodiscard]] bool may_shorten_phases(const scenario::Scenario& scenario, const TrainingSetup& setup);

}  // namespace dtsim::runtime
