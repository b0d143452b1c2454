#pragma once

#include "topologies/topology_plugin.hpp"
#include "sim/topology/topology_graph.hpp"

namespace dtsim::topologies {

/// Every pair of workers joined by its own link: p(p-1)/2 links, one hop between any two workers.
topology::TopologyGraph build_mesh(int workers, const LinkSpec& link);

}  // namespace dtsim::topologies
