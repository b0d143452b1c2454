#pragma once
// Hierarchical (2D) allreduce for ranks on multi-device machines, k ranks on each of N machines:
//   1. inside each machine, a ring reduce-scatter: local rank l ends with chunk l of the machine's sum;
//   2. across machines, the ranks with the same local index l run a ring allreduce of chunk l;
//   3. inside each machine, a ring allgather.
// Only n/k bytes per rank cross the fabric, over N-1 ring steps rather than p-1. When every rank is a
// machine of its own (a flat topology) it is exactly the ring allreduce.

#include "sim/comm/collective_algorithm.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace dtsim::comm {

class HierarchicalAllreduce final : public CollectiveAlgorithm {
 public:
  /// The ranks of each machine and of each local index: the same for every collective of a job.
  struct Layout {
    std::vector<std::shared_ptr<const std::vector<int>>> machine_ranks;  ///< by machine, in order of first rank
    std::vector<std::shared_ptr<const std::vector<int>>> peers;          ///< by local index: one rank per machine
    std::vector<int> machine_of;   ///< by rank: its machine's position in machine_ranks
    std::vector<int> local_index;  ///< by rank
  };

  [[nodiscard]] Operation operation() const override { return Operation::allreduce; }
  /// Throws std::invalid_argument when machines hold different numbers of ranks.
  void run(Transport& transport, Block data) const override;
  /// With every rank a machine of its own: the ring allreduce's 2(p-1)(alpha + n/(pB)).
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "ring"; }
  [[nodiscard]] bool names_every_rank() const override { return true; }

 private:
  /// The layout of `machines` (one entry per rank; empty: a machine per rank), computed once per placement
  /// and shared by the ranks: building it at every collective of every rank would cost O(p) each, O(p^2) a
  /// collective. Each transport asks once (it keeps the answer in its placement scratch).
  std::shared_ptr<const Layout> layout(std::span<const int> machines, int ranks) const;

  struct CachedLayout {
    std::vector<int> machines;  ///< what it was computed from: storage may be reused for another placement
    std::shared_ptr<const Layout> layout;
  };
  // Keyed by the placement's storage (usually the graph's, shared by every rank), checked against its
  // content. SimGrid runs actors one at a time, but run() is const and may be called from threads (the
  // thread transport of the tests does), so the cache is locked; each transport asks once.
  mutable std::mutex layouts_mutex_;
  mutable std::map<std::pair<const int*, int>, CachedLayout> layouts_;
};

/// Alpha-beta time on k ranks per machine and N machines, `intra` the cost of one message between two
/// devices of a machine and `inter` that of one message between machines (path latency, and the bandwidth
/// each of the k concurrent flows gets): 2(k-1)(a_i + n/(k B_i)) + 2(N-1)(a_x + n/(k N B_x)).
core::Seconds hierarchical_allreduce_time(int per_machine, int machines, core::Bytes size, const AlphaBeta& intra,
                                          const AlphaBeta& inter);

}  // namespace dtsim::comm
