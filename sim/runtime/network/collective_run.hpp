#pragma once
// Simulates single collectives on a topology, outside any training run: the basis of `dtsim collective`,
// the collective benchmarks and the closed-form property tests. Creates the process's SimGrid engine.

#include "sim/comm/collective_algorithm.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/topology_graph.hpp"

#include <vector>

namespace dtsim::runtime {

struct CollectiveOutcome {
  double simulated_s = 0.0;                 ///< when the last rank finished
  std::vector<std::vector<float>> results;  ///< each rank's buffer afterwards
};

/// `algorithm` on `inputs[r]` (one buffer per worker of `graph`, all the same length) over the graph's
/// workers in rank order, moving the real values.
CollectiveOutcome simulate_collective(const topology::TopologyGraph& graph, scenario::NetworkModel network_model,
                                      const comm::CollectiveAlgorithm& algorithm, std::vector<std::vector<float>> inputs);

/// One collective to time: an algorithm and a block size in float elements.
struct CollectiveCase {
  const comm::CollectiveAlgorithm* algorithm = nullptr;
  std::size_t elements = 0;
  /// Lets ring phases whose rounds are provably identical run as one transfer (PhaseShortcut). Off, every
  /// round is simulated; the simulated times are the same, which a test checks.
  bool phase_shortcut = true;
};

/// Simulates every case in turn in one engine, timing-only (message sizes, no values: memory does not grow
/// with ranks x size), over the graph's workers, with a barrier between cases (a barrier costs no simulated
/// time, so each case starts on an idle network). Returns each case's simulated duration, from the barrier
/// to the last rank's finish, in seconds.
std::vector<double> time_collective_cases(const topology::TopologyGraph& graph, scenario::NetworkModel network_model,
                                          const std::vector<CollectiveCase>& cases);

}  // namespace dtsim::runtime
