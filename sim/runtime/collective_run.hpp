#pragma once
// Simulates a single collective on a topology, outside any training run: the basis of collective
// benchmarks and of the closed-form property tests. Creates the process's SimGrid engine.

#include "sim/comm/allreduce_algorithm.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/topology_graph.hpp"

#include <vector>

namespace dtsim::runtime {

struct CollectiveOutcome {
  double simulated_s = 0.0;              ///< when the last rank finished
  std::vector<std::vector<float>> results;  ///< each rank's buffer afterwards
};

/// `algorithm` on `inputs[r]` (one buffer per worker of `graph`, all the same length) over the graph's
/// workers in rank order.
CollectiveOutcome simulate_allreduce(const topology::TopologyGraph& graph, scenario::NetworkModel network_model,
                                     const comm::AllreduceAlgorithm& algorithm, std::vector<std::vector<float>> inputs);

}  // namespace dtsim::runtime
