#include "sim/runtime/network/network_backend.hpp"

#include <fmt/format.h>

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

void NetworkBackend::check(const scenario::Scenario& s, const comm::CollectiveRegistry& allreduce,
                           core::DiagnosticSink& sink) const {
  if (!times_phases_at_once()) return;
  const auto refuse = [&](const std::string& why, const std::string& hint) {
    sink.error(s.topology.network_model_at, "topology.network_model", times_only() + " " + why, hint);
  };
  const std::string use_alpha_beta = "use network_model: alpha_beta, which times every message";
  const std::string& algorithm = s.training.allreduce_algorithm.value;
  if (!s.model.timing_only && s.training.parallelism.is_model_parallel()) {
    refuse(fmt::format("times the collectives of timing-only runs and of whole replicas trained for real, and '{}' is "
                       "split over devices, its activations' values sent message by message",
                       s.model.kind.value),
           use_alpha_beta);
  } else if (s.training.architecture != scenario::Architecture::Allreduce) {
    refuse("times allreduce collectives, and a parameter server's pushes and pulls are messages", use_alpha_beta);
  } else if (allreduce.contains(algorithm) && !allreduce.find(algorithm).factory.timed_at_once) {
    refuse(fmt::format("times ring phases and steps of the whole group, and '{}' sends its messages one by one",
                       algorithm),
           "use another training.architecture.algorithm (every one but double_binary_tree), or " + use_alpha_beta);
  } else if ((s.failures.enabled && !s.failures_projected()) || !s.background_traffic.empty() ||
             !s.link_traces.empty() || !s.link_conditions.empty()) {
    refuse(
        "shares the links among a phase's own flows only: failures, background traffic, link traces and link "
        "conditions would go unseen",
        use_alpha_beta);
  } else if (s.energy.enabled && s.energy.link_busy_power) {
    refuse("times phases without loading SimGrid's links, so energy.link_busy_power would count none of their bytes",
           "leave link_busy_power out (link_idle_power is counted), or " + use_alpha_beta);
  }
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
