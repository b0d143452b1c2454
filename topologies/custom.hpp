#pragma once

#include "topologies/topology_plugin.hpp"
#include "sim/topology/topology_graph.hpp"

namespace dtsim::topologies {

/// The nodes and links a `custom` topology section declares, in declaration order (workers take ranks, and
/// servers indices, in that order); a link's class is its key in `link_classes`, `link` when it names none.
/// The section must have passed the custom topology's check: every link joins two declared nodes. `link` is
/// the context's resolved one where it has it (topology_link).
topology::TopologyGraph build_custom(const core::View& section, const TopologyContext& context = {});

}  // namespace dtsim::topologies
