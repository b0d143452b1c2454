#include "sim/runtime/network/phase_shortcut.hpp"

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

/// Whether a run trained for real computes its collectives' values apart from their messages (values_apart.hpp): not
/// where workers fail in the simulation, whose recovery may leave a collective that some ranks never finish.
bool values_apart_in(const scenario::Scenario& scenario, const TrainingSetup& setup) {
  return !is_timing_only(setup.mode) && setup.values_apart && !(scenario.failures.enabled && !scenario.failures_projected());
}

/// In a timing-only run the allreduce is the only traffic, and with equal workers every rank enters it at the
/// same moment: the condition under which identical ring rounds may be simulated as one transfer. A
/// pipeline's activations cross the links while a stage's replicas allreduce: the shortcut's premise (the
/// allreduce alone on the network) does not hold.
/// A data-parallel run trained for real averages in lock step under the same premise where its values are computed
/// apart and no worker fails.
bool may_shorten_phases(const scenario::Scenario& scenario, const TrainingSetup& setup) {
  const bool lock_step_values_apart = setup.mode == RunMode::DataParallel && values_apart_in(scenario, setup) &&
                                      setup.sync->averages_in_lock_step() && !scenario.failures.enabled;
  return (setup.mode == RunMode::TimingDataParallel || lock_step_values_apart) && scenario.unperturbed() &&
         setup.phase_shortcut;
}

}  // namespace dtsim::runtime
