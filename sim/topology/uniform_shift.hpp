#pragma once
// Whether the transfers of one ring-like phase, every rank r sending to rank r + d at the same moment,
// are provably identical: each route has the same latency and bottleneck bandwidth, and no link direction
// carries two of them. Then every round of such a phase takes the same time, so the rounds can be
// simulated as one longer transfer (see S4uTransport::shift_rounds).

#include "sim/topology/routing.hpp"
#include "sim/topology/topology_graph.hpp"

#include <span>

namespace dtsim::topology {

/// `rank_nodes[r]` is rank r's host. With `reverse_traffic` (a network model whose acknowledgements flow
/// back, as SimGrid's cross-traffic does) the links of the route back count as used too.
bool uniform_shift(const TopologyGraph& graph, const RoutingTable& routes, std::span<const NodeId> rank_nodes,
                   int shift, bool reverse_traffic);

}  // namespace dtsim::topology
