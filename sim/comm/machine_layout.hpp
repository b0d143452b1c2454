#pragma once
// Which ranks of a transport share a machine, as the hierarchical algorithms need it: the ranks of each
// machine and, across machines, the ranks with the same local index. Computed once per placement and
// shared by the ranks: building it at every collective of every rank would cost O(p) each, O(p^2) a
// collective.

#include "sim/comm/transport.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace dtsim::comm {

/// k ranks on each of N machines.
struct MachineLayout {
  std::vector<std::shared_ptr<const std::vector<int>>> machine_ranks;  ///< by machine, in order of first rank
  std::vector<std::shared_ptr<const std::vector<int>>> peers;          ///< by local index: one rank per machine
  std::vector<int> machine_of;   ///< by rank: its machine's position in machine_ranks
  std::vector<int> local_index;  ///< by rank
};

/// The layouts an algorithm has computed, keyed by the placement's storage (usually the graph's, shared by
/// every rank) and checked against its content: storage may be reused for another placement. SimGrid runs
/// actors one at a time, but a collective's run() is const and may be called from threads (the thread
/// transport of the tests does), so the cache is locked.
class MachineLayouts {
 public:
  /// The layout of `transport`'s machines (empty: a machine per rank), kept in its placement scratch so that
  /// each transport asks once (whatever the algorithm: the layout is the machines'). `algorithm` names the
  /// caller in the error thrown (std::invalid_argument) when machines hold different numbers of ranks.
  [[nodiscard]] const std::shared_ptr<const MachineLayout>& of(Transport& transport, std::string_view algorithm) const;
  /// The layout of `ranks` ranks on `machines` (empty: a machine per rank), computed once per placement.
  [[nodiscard]] std::shared_ptr<const MachineLayout> of(std::span<const int> machines, int ranks,
                                                        std::string_view algorithm) const {
    return layout(machines, ranks, algorithm);
  }

 private:
  struct Cached {
    std::vector<int> machines;
    std::shared_ptr<const MachineLayout> layout;
  };
  [[nodiscard]] std::shared_ptr<const MachineLayout> layout(std::span<const int> machines, int ranks,
                                                            std::string_view algorithm) const;

  mutable std::mutex mutex_;
  mutable std::map<std::pair<const int*, int>, Cached> cached_;
};

}  // namespace dtsim::comm
