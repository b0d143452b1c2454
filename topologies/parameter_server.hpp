#pragma once

#include "topologies/topology_plugin.hpp"
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
topology::TopologyGraph build_parameter_server(int workers, int servers, const LinkSpec& worker_link,
                                               const LinkSpec& server_link);

}  // namespace dtsim::topologies
