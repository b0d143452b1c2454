#pragma once

#include "topologies/topology_plugin.hpp"
#include "sim/topology/topology_graph.hpp"

namespace dtsim::topologies {

/// `workers` hosts in a cycle, worker i linked to worker (i+1) mod p by a full-duplex link:
///
///   worker-0 -- worker-1 -- ... -- worker-(p-1)
///       \______________________________/
///
/// Two workers share one link; one worker has none. Not `bidirectional`: the links are one-way, i to i+1,
/// so traffic only goes round one way (two workers then have a link each way).
topology::TopologyGraph build_ring(int workers, const LinkSpec& link, bool bidirectional = true);

}  // namespace dtsim::topologies
