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

/// One allreduce to time: an algorithm and a message size in float elements.
struct AllreduceCase {
  const comm::AllreduceAlgorithm* algorithm = nullptr;
  std::size_t elements = 0;
};

/// Simulates every case in turn in one engine, over the graph's workers, with a barrier between cases
/// (a barrier costs no simulated time, so each case starts on an idle network). Returns each case's
/// simulated duration, from the barrier to the last rank's finish, in seconds. Buffers are real and
/// allocated per case: memory peaks at about ranks x the largest size, plus messages in flight.
std::vector<double> time_allreduce_cases(const topology::TopologyGraph& graph, scenario::NetworkModel network_model,
                                         const std::vector<AllreduceCase>& cases);

}  // namespace dtsim::runtime
