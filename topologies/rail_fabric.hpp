#pragma once

#include "sim/topology/topology_graph.hpp"
#include "topologies/topology_plugin.hpp"

#include <cstddef>
#include <vector>

namespace dtsim::topologies {

/// The rail-optimized fabric of DGX SuperPOD-like clusters, over one NIC per device: NIC d of every node on
/// rail d, whose leaf switches hold `arity` nodes each; every leaf of every rail linked to each of
/// ceil(arity / oversubscription) spines (none when there is one leaf in all), by uplinks that carry 1/o of a
/// full leaf's ports.
/// Its hosts are the NICs "nic-N", node by node and device by device; leaves "rail-R-leaf-G" (class `rail` to
/// the NICs) and spines "rail-spine-S" (class `spine`).
///
///      rail-spine-0     rail-spine-1     (2 nodes of 2 devices, arity 2, oversubscription 1: a leaf a rail,
///             |      X      |              each linked to both spines)
///     rail-0-leaf-0      rail-1-leaf-0
///       |      |           |      |
///     nic-0  nic-2       nic-1  nic-3
topology::TopologyGraph build_rail_fabric(const std::vector<std::size_t>& devices_per_node, int arity,
                                          double oversubscription, const LinkSpec& link);

}  // namespace dtsim::topologies
