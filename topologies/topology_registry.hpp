#pragma once
// Topology builders, registered by the name used in `topology.kind`.

#include "sim/core/registry.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/topology_graph.hpp"

#include <functional>

namespace dtsim::topologies {

/// Builds the graph for one scenario (its cluster and topology sections, and its seed for random graphs).
using TopologyBuilder = std::function<topology::TopologyGraph(const scenario::Scenario&)>;
using TopologyRegistry = core::Registry<TopologyBuilder>;

/// Adds every built-in topology. Called from main (no self-registering statics).
void register_builtin_topologies(TopologyRegistry& registry);

}  // namespace dtsim::topologies
