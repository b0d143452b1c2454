#pragma once

#include "topologies/topology_plugin.hpp"
#include "sim/topology/topology_graph.hpp"

namespace dtsim::topologies {

/// Multi-device nodes joined by a fabric. Workers fill the nodes (`context.nodes`, from `cluster.nodes`) in
/// order, node by node (rank r is device r - offset of its node); the devices of a node are joined as its
/// type says. With one NIC per node, each device also links (intra-node link) to its node's NIC, and the
/// NICs are the fabric's endpoints; with one NIC per device, the devices themselves are. The fabric is built
/// by the `fabric` topology's own builder (from the context's registry) over those endpoints, with `link` as
/// the NIC link, then joined in: its switches and servers keep their roles, named "fabric-...".
///
///   per_node, fabric ring:                 per_device, fabric fat_tree:
///     node-0-dev-0 == node-0-dev-1           node-0-dev-0 == node-0-dev-1
///            \         /                          |               |
///            node-0-nic --- node-1-nic ...      fabric-leaf-0 ... (one fabric port per device)
///
/// Throws std::invalid_argument when the nodes hold fewer devices than workers or the fabric is unknown.
topology::TopologyGraph build_hierarchical(const core::View& section, const TopologyContext& context);

}  // namespace dtsim::topologies
