#pragma once
// What each `topology.network_model` brings to a run: whether a network times a group's timing-only
// collectives (and a pipeline's messages) at once instead of SimGrid message by message, and how that network
// shares the links, both read from the model's traits (scenario::traits_of, sim/scenario/named_values.cpp).
// The runtime and the commands ask the backend of the scenario's model instead of naming models
// (docs/extending.md, "Adding a network backend").

#include "sim/comm/collective_algorithm.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/runtime/network/analytical_network.hpp"
#include "sim/scenario/named_values.hpp"

#include <memory>
#include <optional>
#include <string>

namespace dtsim::runtime {

struct NetworkBackend {
  scenario::NetworkModel model = scenario::NetworkModel::AlphaBeta;

  /// True when a network times the timing-only collectives at once: ranks that behave alike may then stand
  /// for each other (mirrored_ranks.hpp), and what it does not time must be refused.
  [[nodiscard]] bool times_phases_at_once() const { return scenario::traits_of(model).times_phases_at_once; }
  /// How that network shares the links; none when every message is SimGrid's.
  [[nodiscard]] std::optional<FlowSharing> phases_at_once() const;
  /// Why a scenario's feature needs every message timed (a rule of scenario_resolver.cpp names it), said of
  /// this backend ("the analytical network"): empty when it times every message.
  [[nodiscard]] std::string times_only() const;
  /// Refuses in `sink`, at `topology.network_model`, what a scenario asks of a network that times phases at
  /// once and that it would leave to SimGrid message by message, or could not see; `allreduce` holds the
  /// allreduce algorithms. Nothing for a model that times every message.
  void check(const scenario::Scenario& s, const comm::CollectiveRegistry& allreduce, core::DiagnosticSink& sink) const;
  /// The run's network over `graph` and `routes` (which must outlive it); null when it has none.
  [[nodiscard]] std::unique_ptr<AnalyticalNetwork> make_network(const topology::TopologyGraph& graph,
                                                                const topology::RoutingTable& routes) const;
};

/// The backend of `model`.
const NetworkBackend& network_backend(scenario::NetworkModel model);

}  // namespace dtsim::runtime
