#pragma once

#include "topologies/topology_plugin.hpp"
#include "sim/topology/topology_graph.hpp"

namespace dtsim::topologies {

/// A two-level fat tree (leaf-spine folded Clos). Every leaf switch holds `arity` workers (worker i under
/// leaf i / arity) and has one link to every spine switch; there are ceil(arity / oversubscription)
/// spines, and a leaf's uplink capacity is its downlink capacity divided by `oversubscription` exactly
/// (1 = full bisection): each uplink carries the leaf's port capacity / (o x spines), the link's bandwidth
/// where o divides `arity` and less where it does not (arity 2 at o = 4: one spine, uplinks of half a
/// link). A leaf's capacity counts `port_nics[rank]` links for a port (TopologyContext::port_nics; one
/// past its end), its free ports as its used ones, so a partly filled leaf gets the uplinks of a full one;
/// the port links themselves stay `link` (a hierarchy widens them). Routes spread over the spines by
/// source-destination hash. One leaf needs no spine.
///
///        spine-0        spine-1
///          |    X    |                (arity 2, oversubscription 1, 4 workers:
///        leaf-0        leaf-1          each leaf linked to both spines)
///        |    |        |    |
///      w-0    w-1    w-2    w-3
topology::TopologyGraph build_fat_tree(int workers, int arity, double oversubscription, const LinkSpec& link,
                                       std::span<const int> port_nics = {});

}  // namespace dtsim::topologies
