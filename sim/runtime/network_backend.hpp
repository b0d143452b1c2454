#pragma once
// What each `topology.network_model` brings to a run, in one place: whether a network times a group's
// timing-only collectives (and a pipeline's messages) at once instead of SimGrid message by message, and how
// that network shares the links. The runtime and the commands ask the backend of the scenario's model
// instead of naming models; a new model is its enum value and name (sim/scenario/named_values.cpp) and one
// row here (docs/extending.md, "Adding a network backend").

#include "sim/runtime/analytical_network.hpp"
#include "sim/scenario/scenario.hpp"

#include <memory>
#include <optional>
#include <string_view>

namespace dtsim::runtime {

struct NetworkBackend {
  scenario::NetworkModel model = scenario::NetworkModel::AlphaBeta;
  /// How the network that times phases at once shares the links; none: every message is SimGrid's.
  std::optional<FlowSharing> phases_at_once{};
  /// Why a scenario's feature needs every message timed (a rule of scenario_resolver.cpp names it), said of
  /// this backend: empty when it times every message.
  std::string_view times_only{};

  /// True when a network times the timing-only collectives at once: ranks that behave alike may then stand
  /// for each other (mirrored_ranks.hpp), and what it does not time must be refused.
  [[nodiscard]] bool times_phases_at_once() const { return phases_at_once.has_value(); }
  /// The run's network over `graph` and `routes` (which must outlive it); null when it has none.
  [[nodiscard]] std::unique_ptr<AnalyticalNetwork> make_network(const topology::TopologyGraph& graph,
                                                                const topology::RoutingTable& routes) const;
};

/// The backend of `model`.
const NetworkBackend& network_backend(scenario::NetworkModel model);

}  // namespace dtsim::runtime
