// The event-level long run against simulating every step: on a small allreduce job with random failures
// (noticed during work, checkpoints and recoveries alike), repairs, detection, restarts and checkpoints, the
// walk from the failure-free iteration time meets the same failures at the same steps and ends at the same time.

#include "sim/app/isolated_call.hpp"
#include "sim/metrics/long_run.hpp"
#include "tests/sim/simulated_run.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

namespace dtsim {
namespace {

constexpr const char* kJob = R"(
name: long-run-small
seed: 7
cluster:
  workers: 4
  device: {name: slow, peak_flops: 2GFLOPS}
topology: {kind: ring, link: {bandwidth: 10Gbps, latency: 5us}}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: 40000, features: 63}
training:
  batch: {per_worker: 32}
  optimizer: {learning_rate: 0.1}
  sync: {strategy: bsp}
  stop: {epochs: 3}
)";

constexpr const char* kFailures = R"(
failures:
  random: {mtbf: 20ms, repair_after: 1ms}
  checkpoint: {every: 25, storage_bandwidth: 20MBps}
  restart_time: 2ms
  detection_time: 0.5ms
)";

/// The failure-free run's iteration time, simulated in a child process (one engine per process).
double steady_iteration_s() {
  const app::IsolatedOutcome outcome = app::call_isolated(
      [] {
        const testing::SimulatedRun run = testing::simulate_text(kJob, "steady.yaml");
        return fmt::format("{:.17g}", run.record.simulated_s / static_cast<double>(run.record.iterations));
      },
      std::chrono::minutes(10));
  EXPECT_EQ(outcome.status, app::IsolatedOutcome::Status::finished) << outcome.text;
  return std::stod(outcome.text);
}

TEST(LongRun, MeetsTheSameFailuresAtTheSameStepsAsSimulatingEveryStep) {
  const double iteration_s = steady_iteration_s();
  const testing::SimulatedRun simulated = testing::simulate_text(std::string(kJob) + kFailures, "failing.yaml");
  const metrics::RunRecord& record = simulated.record;
  const scenario::FailureSpec& spec = simulated.scenario.failures;
  ASSERT_GE(record.failures.size(), 5U) << "the case must meet failures in work, checkpoints and recoveries";
  ASSERT_GT(record.checkpoints, 0);

  metrics::LongRunCosts costs;
  costs.iteration_s = iteration_s;
  costs.iterations = record.iterations;
  costs.checkpoint_every = *spec.checkpoint_every;
  costs.checkpoint_s = record.checkpoint_s / static_cast<double>(record.checkpoints);
  costs.load_s = costs.checkpoint_s;
  costs.restart_s = spec.detection_s + spec.restart_s;
  const metrics::LongRun walked = metrics::walk_long_run(
      costs, metrics::FailureSources(metrics::FailureSchedule(spec, 4, simulated.scenario.seed), {}, simulated.scenario.seed));

  EXPECT_EQ(walked.failures, static_cast<double>(record.failures.size()));
  EXPECT_NEAR(walked.total_s, record.simulated_s, 1e-3 * record.simulated_s);
  std::size_t met = 0;
  double lost_s = 0.0;
  double downtime_s = 0.0;
  for (const metrics::Interruption& at : walked.interruptions) {
    ASSERT_LT(met, record.failures.size());
    const metrics::FailureRecord& first = record.failures[met];
    EXPECT_DOUBLE_EQ(at.at_s, first.at_s) << "interruption " << met;
    EXPECT_EQ(at.lost_iterations, first.lost_steps) << "interruption " << met;
    EXPECT_NEAR(at.noticed_s, first.noticed_s, 1e-3 * first.noticed_s) << "interruption " << met;
    for (int f = 0; f < at.failures; ++f) {
      lost_s += record.failures[met].lost_s;
      downtime_s += record.failures[met].downtime_s;
      ++met;
    }
  }
  EXPECT_EQ(met, record.failures.size());
  EXPECT_NEAR(walked.lost_work_s, lost_s, 1e-3 * lost_s);
  EXPECT_NEAR(walked.recovery_s, downtime_s, 1e-9);
  EXPECT_NEAR(walked.checkpoint_s, record.checkpoint_s, 1e-9);
}

}  // namespace
}  // namespace dtsim
