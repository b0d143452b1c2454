#pragma once

#include "topologies/topology_plugin.hpp"
#include "sim/topology/topology_graph.hpp"

#include <vector>

namespace dtsim::topologies {

/// A 2D or 3D torus of workers with `dimensions` (their product is the worker count). Rank r sits at
/// coordinates (r mod d0, (r / d0) mod d1, ...) and is linked to its successor along every dimension,
/// wrapping around; a dimension of size 2 has one link per pair, not two.
topology::TopologyGraph build_torus(const std::vector<int>& dimensions, const LinkSpec& link);

}  // namespace dtsim::topologies
