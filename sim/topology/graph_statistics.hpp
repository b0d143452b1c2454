#pragma once
// Facts about a built topology, computed once on the graph with Boost.Graph algorithms: what `dtsim
// explain` prints, and what users compare fabrics by.

#include "sim/topology/topology_graph.hpp"

#include <cstddef>

namespace dtsim::topology {

struct GraphStatistics {
  std::size_t workers = 0;
  std::size_t servers = 0;
  std::size_t switches = 0;
  std::size_t links = 0;
  bool connected = true;
  /// Most links on a fewest-hop path between two hosts (workers and servers).
  int diameter_hops = 0;
  /// Mean links on the fewest-hop paths over all pairs of distinct hosts.
  double average_hops = 0.0;
  /// Maximum flow, each link carrying its bandwidth in each direction, from the workers of rank below p/2
  /// to the others: the bandwidth across the cut that splits the workers in rank order. An estimate of
  /// the bisection bandwidth (the minimum over all balanced cuts can be lower). Zero with one worker.
  core::BytesPerSecond bisection_bandwidth;
  /// The oversubscription built: over the leaves (switches linked to a port, TopologyGraph::ports()), the
  /// largest of a leaf's capacity toward its ports over its capacity toward other switches, one direction.
  /// Zero where no leaf links to another switch (no switches, one leaf, a star).
  double leaf_oversubscription = 0.0;
};

/// Statistics of `graph`; hop counts come from one breadth-first search per host.
GraphStatistics compute_statistics(const TopologyGraph& graph);

}  // namespace dtsim::topology
