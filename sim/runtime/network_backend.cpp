#include "sim/runtime/network_backend.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace dtsim::runtime {
namespace {

const std::vector<NetworkBackend>& backends() {
  static const std::vector<NetworkBackend> all{
      {.model = scenario::NetworkModel::AlphaBeta},
      {.model = scenario::NetworkModel::Tcp},
      {.model = scenario::NetworkModel::Analytical,
       .phases_at_once = FlowSharing::MaxMin,
       .times_only = "the analytical network"},
      {.model = scenario::NetworkModel::ClosedForm,
       .phases_at_once = FlowSharing::None,
       .times_only = "the closed-form network"},
  };
  return all;
}

}  // namespace

std::unique_ptr<AnalyticalNetwork> NetworkBackend::make_network(const topology::TopologyGraph& graph,
                                                                const topology::RoutingTable& routes) const {
  if (!phases_at_once) return nullptr;
  return std::make_unique<AnalyticalNetwork>(graph, routes, *phases_at_once);
}

const NetworkBackend& network_backend(scenario::NetworkModel model) {
  const auto& all = backends();
  const auto it = std::find_if(all.begin(), all.end(), [&](const NetworkBackend& b) { return b.model == model; });
  if (it == all.end()) throw std::logic_error("a network model without a backend");
  return *it;
}

}  // namespace dtsim::runtime
