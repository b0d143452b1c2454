#include "sim/runtime/mirrored_ranks.hpp"

#include <algorithm>

namespace dtsim::runtime {

bool ranks_behave_alike(const scenario::Scenario& scenario, const TrainingSetup& setup) {
  const scenario::ClusterSpec& cluster = scenario.cluster;
  const bool equal_workers =
      std::all_of(cluster.slowdown.begin(), cluster.slowdown.end(), [](double factor) { return factor == 1.0; });
  // Only the analytical network gives every rank of a phase the same start and end; message by message, a
  // rank's rounds end when its own messages do.
  // The collectives must say where every rank sends (ring phases), so that worker 0 may time them for all.
  const auto names_every_rank = [](const std::unique_ptr<comm::CollectiveAlgorithm>& algorithm) {
    return algorithm == nullptr || algorithm->names_every_rank();
  };
  return setup.mirror_ranks && scenario.topology.network_model == scenario::NetworkModel::Analytical &&
         setup.allreduce != nullptr && names_every_rank(setup.allreduce) &&
         (setup.zero_stage == 0 || (names_every_rank(setup.reduce_scatter) && names_every_rank(setup.allgather))) &&
         setup.profile && setup.stage_layers.empty() && scenario.training.parallelism.tensor == 1 &&
         scenario.training.architecture == scenario::Architecture::Allreduce && setup.sync->lock_step() &&
         equal_workers && cluster.uniform_devices() && cluster.random_slowdowns.empty() &&
         cluster.speed_traces.empty() && !scenario.failures.enabled && scenario.failures.link_events.empty() &&
         scenario.background_traffic.empty() && scenario.link_traces.empty();
}

void MirroredRanks::on_compute(Lane lane, Span span) {
  for_each_worker(lane, [&](Lane each) { next_.on_compute(each, span); });
}

void MirroredRanks::on_communication(Lane lane, Span blocked, std::span<const Span> moving) {
  for_each_worker(lane, [&](Lane each) { next_.on_communication(each, blocked, moving); });
}

void MirroredRanks::on_wait(Lane lane, Span span) {
  for_each_worker(lane, [&](Lane each) { next_.on_wait(each, span); });
}

void MirroredRanks::on_sent(Lane lane, double bytes, std::int64_t messages) {
  for_each_worker(lane, [&](Lane each) { next_.on_sent(each, bytes, messages); });
}

void MirroredRanks::on_lane_done(Lane lane) {
  for_each_worker(lane, [&](Lane each) { next_.on_lane_done(each); });
}

void copy_first_worker(metrics::RunRecord& record, int workers) {
  const metrics::HostActivity first = record.hosts.at(0);
  for (int host = 1; host < workers; ++host) {
    metrics::HostActivity& copy = record.hosts.at(static_cast<std::size_t>(host));
    const std::string name = std::move(copy.name);
    const std::string role = std::move(copy.role);
    copy = first;
    copy.name = name;
    copy.role = role;
  }
}

}  // namespace dtsim::runtime
