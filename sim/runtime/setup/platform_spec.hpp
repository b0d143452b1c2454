#pragma once
// A scenario's hosts and links as the platform builder takes them: each worker's device, slowdown, power
// and speed trace; the servers'; the links' traces and power.

#include "sim/platform/platform_builder.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/topology_graph.hpp"

#include <optional>
#include <string>

namespace dtsim::runtime {

platform::PlatformSpec platform_spec(const scenario::Scenario& scenario, const topology::TopologyGraph& graph);

/// The id of the graph link named `name` (as links.csv names it), if there is one.
std::optional<std::size_t> find_link(const topology::TopologyGraph& graph, const std::string& name);

}  // namespace dtsim::runtime
