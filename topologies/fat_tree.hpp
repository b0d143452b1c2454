#pragma once

#include "topologies/topology_plugin.hpp"
#include "sim/topology/topology_graph.hpp"

namespace dtsim::topologies {

/// A two-level fat tree (leaf-spine folded Clos). Every leaf switch holds `arity` workers (worker i under
/// leaf i / arity) and has one link to every spine switch; there are ceil(arity / oversubscription)
/// spines, so a leaf's uplink capacity is its downlink capacity divided by `oversubscription` (1 = full
/// bisection). Routes spread over the spines by source-destination hash. One leaf needs no spine.
///
///        spine-0        spine-1
///          |    X    |                (arity 2, oversubscription 1, 4 workers:
///        leaf-0        leaf-1          each leaf linked to both spines)
///        |    |        |    |
///      w-0    w-1    w-2    w-3
topology::TopologyGraph build_fat_tree(int workers, int arity, double oversubscription, const LinkSpec& link);

}  // namespace dtsim::topologies
