#pragma once
// Who a gossiping worker averages with, shared by the run's workers: the topology's worker-to-worker neighbours,
// listed once for the run, and each round's random matching, drawn once for all the workers that ask for it
// (sync/gossip_matching.hpp). Every worker listing every worker's neighbours and drawing every round's matching
// for itself cost O(p) a worker and a round, O(p^2) a round in all.

#include "sim/topology/topology_graph.hpp"

#include <cstdint>
#include <map>
#include <vector>

namespace dtsim::runtime {

class GossipPeers {
 public:
  /// The `workers` workers of `graph` (which must outlive this), matched with `seed`.
  GossipPeers(const topology::TopologyGraph& graph, int workers, std::uint64_t seed)
      : graph_(&graph), workers_(workers), seed_(seed) {}

  /// Rank `rank`'s neighbours, ascending.
  [[nodiscard]] const std::vector<int>& neighbours_of(int rank);
  /// Rank `rank`'s partner in round `round`, or -1 where it has none. A round's matching is kept until every worker
  /// has asked for it (SimGrid runs the workers one at a time: no lock).
  [[nodiscard]] int partner(int rank, std::int64_t round);

 private:
  struct Round {
    std::vector<int> partners;
    int asked = 0;
  };
  const std::vector<std::vector<int>>& neighbours();

  const topology::TopologyGraph* graph_;
  int workers_;
  std::uint64_t seed_;
  std::vector<std::vector<int>> neighbours_;
  std::map<std::int64_t, Round> rounds_;
};

}  // namespace dtsim::runtime
