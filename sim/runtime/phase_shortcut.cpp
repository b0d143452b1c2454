#include "sim/runtime/phase_shortcut.hpp"

#include "sim/topology/uniform_shift.hpp"

namespace dtsim::runtime {

PhaseShortcut::PhaseShortcut(const topology::TopologyGraph& graph, const topology::RoutingTable& routes,
                             std::vector<topology::NodeId> rank_nodes, bool reverse_traffic)
    : graph_(&graph), routes_(&routes), rank_nodes_(std::move(rank_nodes)), reverse_traffic_(reverse_traffic) {}

bool PhaseShortcut::applies(int shift) const {
  const auto it = cache_.find(shift);
  if (it != cache_.end()) return it->second;
  const bool uniform = topology::uniform_shift(*graph_, *routes_, rank_nodes_, shift, reverse_traffic_);
  cache_.emplace(shift, uniform);
  return uniform;
}

}  // namespace dtsim::runtime
