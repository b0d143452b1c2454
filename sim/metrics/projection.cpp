#include "sim/metrics/projection.hpp"

#include <algorithm>
#include <cmath>

namespace dtsim::metrics {
namespace {

/// The cluster's components of a unit: its workers' devices, or its nodes (each worker its own without
/// cluster.nodes).
double components_of(const scenario::Scenario& s, scenario::ComponentUnit unit) {
  if (unit == scenario::ComponentUnit::Device || s.cluster.nodes.empty()) return static_cast<double>(s.cluster.workers);
  double nodes = 0.0;
  for (const scenario::NodeGroup& group : s.cluster.nodes) nodes += group.count;
  return nodes;
}

/// The causes of the job's interruptions: its workers' random failures (a worker's mtbf over the workers that
/// fail), then each component kind's (a component's mtbf over the cluster's components of its unit).
std::vector<FailureCause> causes_of(const scenario::Scenario& s) {
  const scenario::FailureSpec& spec = s.failures;
  std::vector<FailureCause> out;
  if (spec.mtbf_s) {
    const auto failing = static_cast<double>(spec.random_workers.empty() ? s.cluster.workers
                                                                         : static_cast<int>(spec.random_workers.size()));
    out.push_back({"random", *spec.mtbf_s / failing, spec.random_repair_s.value_or(0.0)});
  }
  for (const scenario::ComponentFailures& kind : spec.components) {
    out.push_back({kind.kind, kind.mtbf_s / components_of(s, kind.per), kind.repair_s});
  }
  return out;
}

/// The failures a whole run of `iterations` meets, at the rate of all their causes; a checkpoint of the
/// parameters and the optimizer's values, 4 bytes each, at the storage's bandwidth (as a simulated run writes
/// one), read back after each interruption's detection, repair and restart. The run drawn takes its random
/// failures from the workers' processes a simulated run of the scenario would meet.
Projection::Failures failures_of(const scenario::Scenario& s, const RunRecord& record, std::int64_t iterations,
                                 double iteration_s) {
  const scenario::FailureSpec& spec = s.failures;
  FailureCosts costs;
  costs.iteration_s = iteration_s;
  costs.iterations = iterations;
  costs.checkpoint_every = spec.checkpoint_every.value_or(0);
  costs.causes = causes_of(s);
  costs.job_mtbf_s = combined_mtbf_s(costs.causes);
  costs.replicas = std::max(1, s.training.parallelism.data);
  if (spec.checkpoint_every && spec.storage_bytes_per_s > 0.0) {
    const double bytes = static_cast<double>(record.parameter_count) * (1.0 + record.optimizer_values) * 4.0;
    costs.load_s = bytes / spec.storage_bytes_per_s;
    costs.checkpoint_s = costs.load_s;
    if (spec.host_bytes_per_s) {
      // Every device of a replica copies its share at once: the replica's devices hold the state between them.
      const double devices = static_cast<double>(s.cluster.workers) / costs.replicas;
      costs.checkpoint_s = bytes / devices / *spec.host_bytes_per_s;
      costs.background_s = costs.load_s;
    }
  }
  costs.recovery_s = spec.detection_s + spec.restart_s + costs.load_s;
  costs.spares = spec.spares;
  costs.shrink = spec.shrink;
  costs.replicas_per_node = replicas_per_node(s, costs.replicas);
  Projection::Failures out{costs, expected_failures(costs), std::nullopt, young_daly_interval_s(costs),
                           best_checkpoint_interval(costs), {}, std::nullopt};
  std::vector<FailureTotals> draws;
  double walked = 0.0;  // interruptions over the draws so far: the draws stop past kDrawsInterruptionLimit
  double passed = 0.0;  // checkpoints over the draws so far: the draws stop past kDrawsCheckpointLimit
  const auto checkpoints = static_cast<double>(checkpoints_written(costs));
  for (int k = 0; k < spec.draws && walked <= kDrawsInterruptionLimit && passed <= kDrawsCheckpointLimit; ++k) {
    const std::uint64_t seed = s.seed + static_cast<std::uint64_t>(k);
    std::optional<FailureSchedule> workers;
    if (spec.mtbf_s) {
      // One more failure than the walk meets at most: the schedule never runs dry before the walk stops.
      workers.emplace(spec, s.cluster.workers, seed, std::nullopt, static_cast<std::size_t>(kDrawnInterruptionLimit) + 1);
    }
    std::optional<LongRun> run = drawn_run(costs, seed, std::move(workers));
    if (!run) break;  // too many interruptions to draw, whatever the seed
    draws.push_back(totals_of(*run, costs));
    walked += run->failures;
    passed += checkpoints;
    if (k == 0) out.timeline = std::move(run->interruptions);
  }
  if (!draws.empty()) out.drawn = draws.front();
  if (draws.size() > 1) out.spread = spread_of(draws);
  return out;
}

}  // namespace

int replicas_per_node(const scenario::Scenario& s, int replicas) {
  const int devices = s.cluster.nodes.empty() ? 1 : s.cluster.nodes.front().devices;
  return std::max(1, devices * replicas / std::max(1, s.cluster.workers));
}

std::optional<Projection> projection(const scenario::Scenario& scenario, const RunRecord& record) {
  if (record.projected_iterations == 0 || record.iterations == 0) return std::nullopt;
  Projection out;
  out.iterations = record.projected_iterations;
  out.simulated_iterations = record.iterations;
  if (scenario.training.sized_epochs()) out.epochs = scenario.training.epochs;
  const auto whole = static_cast<double>(out.iterations);
  const double share = whole / static_cast<double>(out.simulated_iterations);  // of the simulated run
  out.samples = whole * static_cast<double>(record.samples_per_iteration);
  out.tokens = out.samples * static_cast<double>(record.tokens_per_sample);
  out.iteration_s = record.simulated_s / static_cast<double>(out.simulated_iterations);
  out.total_s = whole * out.iteration_s;
  if (scenario.failures.enabled) {
    out.failures = failures_of(scenario, record, out.iterations, out.iteration_s);
    out.total_s = out.failures->expected.total_s;
  }
  out.days = out.total_s / 86'400.0;
  out.device_hours = static_cast<double>(scenario.cluster.workers) * out.total_s / 3600.0;
  const scenario::EnergySpec& rates = scenario.energy;
  if (record.energy) {
    // Work undone by failures is computed again, drawing as it did; recoveries and checkpoints draw nothing here.
    const double redone = out.failures ? 1.0 + out.failures->expected.lost_work_s / out.failures->expected.work_s : 1.0;
    out.kwh = share * redone * record.energy->total_j() / 3.6e6;
    if (rates.carbon_g_per_kwh) out.co2_kg = *out.kwh * *rates.carbon_g_per_kwh / 1000.0;
  }
  if (rates.price_per_device_hour || (out.kwh && rates.price_per_kwh)) {
    // Only the rates declared add up: an undeclared one times a run that would not finish (inf) is no cost.
    out.cost = (rates.price_per_device_hour ? *rates.price_per_device_hour * out.device_hours : 0.0) +
               (out.kwh && rates.price_per_kwh ? *rates.price_per_kwh * *out.kwh : 0.0);
  }
  return out;
}

}  // namespace dtsim::metrics
