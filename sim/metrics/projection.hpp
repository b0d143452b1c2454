#pragma once
// A whole training run projected from the few iterations simulated of it (training.stop.tokens or samples):
// its iterations take the simulated iterations' mean time each, so that the days are the budget over the
// simulated throughput; the device-hours, energy, CO2 and cost follow from the declared rates as the
// simulated run's do (metrics/energy_cost.hpp). With failures.random, the interruptions, lost work,
// recoveries and checkpoints a run of that length meets are added as their expectation (failure_projection.hpp).

#include "sim/metrics/failure_projection.hpp"
#include "sim/metrics/run_record.hpp"
#include "sim/scenario/scenario.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace dtsim::metrics {

struct Projection {
  std::int64_t iterations = 0;            ///< the whole run's: the budget over the global batch, rounded up
  std::int64_t simulated_iterations = 0;
  std::optional<std::int64_t> epochs;     ///< a budget of sized epochs (training.stop.epochs, samples_per_epoch)
  double samples = 0.0;                   ///< trained over the whole run (iterations x global batch)
  double tokens = 0.0;                    ///< samples x the sequence; 0 for models without sequences
  double iteration_s = 0.0;               ///< the simulated iterations' mean
  double total_s = 0.0;                   ///< iterations x iteration_s
  double days = 0.0;
  double device_hours = 0.0;              ///< every worker's device for total_s
  std::optional<double> kwh;              ///< with energy accounting: the simulated joules per iteration
  std::optional<double> co2_kg;           ///< with energy.carbon_intensity
  std::optional<double> cost;             ///< with energy.price_per_kwh or price_per_device_hour
  /// With failures.random: what they cost, expected (in total_s and what follows from it) and one run drawn.
  struct Failures {
    FailureCosts costs;
    FailureTotals expected;
    std::optional<FailureTotals> drawn;
    double young_daly_interval_s = 0.0;
    std::optional<BestInterval> best_interval;  ///< with checkpoints that cost time
    std::vector<Interruption> timeline;         ///< the drawn run's
    std::optional<DrawSpread> spread;           ///< with failures.draws > 1: the drawn runs', the first included
  };
  std::optional<Failures> failures;
};

/// Empty for runs without a budget.
std::optional<Projection> projection(const scenario::Scenario& scenario, const RunRecord& record);

/// The data-parallel replicas, of `replicas`, that one node holds a part of: a shrunk job goes on without them.
int replicas_per_node(const scenario::Scenario& s, int replicas);

}  // namespace dtsim::metrics
