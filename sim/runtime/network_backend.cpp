#include "sim/runtime/network_backend.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace dtsim::runtime {
namespace {

const std::vector<NetworkBackend>& backends() {
  static const std::vector<NetworkBackend> all = [] {
    std::vector<NetworkBackend> out;
    for (const auto& model : scenario::network_models()) out.push_back({.model = model.value});
    return out;
  }();
  return all;
}

}  // namespace

std::optional<FlowSharing> NetworkBackend::phases_at_once() const {
  const scenario::NetworkModelTraits& traits = scenario::traits_of(model);
  if (!traits.times_phases_at_once) return std::nullopt;
  return traits.shares_links ? FlowSharing::MaxMin : FlowSharing::None;
}

std::string NetworkBackend::times_only() const {
  const std::string_view name = scenario::traits_of(model).network_name;
  return name.empty() ? std::string() : "the " + std::string(name) + " network";
}

std::unique_ptr<AnalyticalNetwork> NetworkBackend::make_network(const topology::TopologyGraph& graph,
                                                                const topology::RoutingTable& routes) const {
  const std::optional<FlowSharing> sharing = phases_at_once();
  if (!sharing) return nullptr;
  return std::make_unique<AnalyticalNetwork>(graph, routes, *sharing);
}

const NetworkBackend& network_backend(scenario::NetworkModel model) {
  const auto& all = backends();
  const auto it = std::find_if(all.begin(), all.end(), [&](const NetworkBackend& b) { return b.model == model; });
  if (it == all.end()) throw std::logic_error("a network model without a backend");
  return *it;
}

}  // namespace dtsim::runtime
