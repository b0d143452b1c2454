#pragma once
// Where a job's devices come from on a cluster that other jobs share: whole machines first, grouped by the leaf
// switch that joins them (the first switch a machine's devices share with another machine) and leaves by the switch
// above them (a k-ary fat tree's pod), so that `packed` takes the fewest switches and `spread` the most.

#include "sim/core/diagnostic.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/topology_graph.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace dtsim::runtime {

class ClusterPlacement {
 public:
  /// The cluster's workers are its devices; all start free.
  explicit ClusterPlacement(const topology::TopologyGraph& graph);

  /// The workers (by the cluster's rank) a job of `devices` would take now, in its rank order, as `placement`
  /// says; nullopt where they are not free. `hosts`: explicit placement's ranks; `seed`: random placement's.
  [[nodiscard]] std::optional<std::vector<int>> choose(int devices, scenario::JobPlacement placement,
                                                       const std::vector<int>& hosts, std::uint64_t seed) const;
  void take(const std::vector<int>& ranks);
  void give_back(const std::vector<int>& ranks);
  [[nodiscard]] int free_devices() const { return free_count_; }
  /// The leaf group of each machine (-1: joined to no other machine by a switch), by machine.
  [[nodiscard]] int group_of_machine(int machine) const { return group_.at(static_cast<std::size_t>(machine)); }

 private:
  struct Machine {
    std::vector<int> ranks;  ///< its workers, ascending
    int group = -1;  ///< its leaf switch
    int pod = -1;    ///< the switch above its leaf that groups leaves (a k-ary fat tree's pod)
  };
  [[nodiscard]] std::vector<int> free_of(const Machine& machine) const;
  [[nodiscard]] std::vector<int> packed(int devices) const;
  /// The pod with the fewest free devices that suffice (the first of equals); nullopt where none does.
  [[nodiscard]] std::optional<int> fitting_pod(int devices) const;
  [[nodiscard]] std::vector<int> spread(int devices) const;
  [[nodiscard]] std::vector<int> shuffled(int devices, std::uint64_t seed) const;

  std::vector<Machine> machines_;
  std::vector<int> group_;
  std::vector<bool> free_;
  int free_count_ = 0;
};

/// The cluster ranks of the hosts `spec` names for explicit placement; every name that is not a worker of `graph`
/// or is named twice goes to `sink`, at the host, and is left out of the ranks.
std::vector<int> explicit_ranks(const scenario::JobSpec& spec, const topology::TopologyGraph& graph,
                                core::DiagnosticSink& sink);
/// As above; InputError holding every bad host of the job.
std::vector<int> explicit_ranks(const scenario::JobSpec& spec, const topology::TopologyGraph& graph);

}  // namespace dtsim::runtime
