#pragma once

#include "sim/scenario/scenario.hpp"
#include "sim/topology/topology_graph.hpp"

namespace dtsim::topologies {

/// The nodes and links a `custom` topology declares, in declaration order (workers take ranks, and
/// servers indices, in that order). The scenario reader has already checked that every link joins two
/// declared nodes and that the graph is connected.
topology::TopologyGraph build_custom(const scenario::TopologySpec& spec);

}  // namespace dtsim::topologies
