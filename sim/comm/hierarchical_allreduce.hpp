#pragma once
// Hierarchical (2D) allreduce for ranks on multi-device machines, k ranks on each of N machines:
//   1. inside each machine, a ring reduce-scatter: local rank l ends with chunk l of the machine's sum;
//   2. across machines, the ranks with the same local index l run a ring allreduce of chunk l;
//   3. inside each machine, a ring allgather.
// Only n/k bytes per rank cross the fabric, over N-1 ring steps rather than p-1. When every rank is a
// machine of its own (a flat topology) it is exactly the ring allreduce.

#include "sim/comm/collective_algorithm.hpp"
#include "sim/comm/machine_layout.hpp"

namespace dtsim::comm {

class HierarchicalAllreduce final : public CollectiveAlgorithm {
 public:
  [[nodiscard]] Operation operation() const override { return Operation::allreduce; }
  /// Throws std::invalid_argument when machines hold different numbers of ranks.
  void run(Transport& transport, Block data) const override;
  [[nodiscard]] bool computes_values_in_memory() const override { return true; }
  void values_in_memory(const GroupBlocks& group) const override;
  /// With every rank a machine of its own: the ring allreduce's 2(p-1)(alpha + n/(pB)).
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "ring"; }
  [[nodiscard]] bool names_every_rank() const override { return true; }

 private:
  MachineLayouts layouts_;
};

/// Alpha-beta time on k ranks per machine and N machines, `intra` the cost of one message between two
/// devices of a machine and `inter` that of one message between machines (path latency, and the bandwidth
/// each of the k concurrent flows gets): 2(k-1)(a_i + n/(k B_i)) + 2(N-1)(a_x + n/(k N B_x)).
core::Seconds hierarchical_allreduce_time(int per_machine, int machines, core::Bytes size, const AlphaBeta& intra,
                                          const AlphaBeta& inter);

}  // namespace dtsim::comm
