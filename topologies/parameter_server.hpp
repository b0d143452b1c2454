#pragma once

#include "sim/scenario/scenario.hpp"
#include "sim/topology/topology_graph.hpp"

namespace dtsim::topologies {

/// Workers and servers around one switch (a star):
///
///   worker-0   worker-1  ...  worker-(p-1)
///         \       |        /
///           ---switch-0---
///                 |
///              server-0
///
/// Worker links use `worker_link`, server links `server_link`.
/// Servers a star needs for `s`: one per parameter shard under a parameter-server architecture, else one.
int parameter_servers(const scenario::Scenario& s);

topology::TopologyGraph build_parameter_server(int workers, int servers, const scenario::LinkSpec& worker_link,
                                               const scenario::LinkSpec& server_link);

}  // namespace dtsim::topologies
