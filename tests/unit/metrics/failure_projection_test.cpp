// A budget's failures as a renewal process: the expectation against its closed form's parts, and runs drawn
// from many seeds against the expectation.

#include "sim/metrics/failure_projection.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace dtsim::metrics {
namespace {

/// Ten million one-second iterations, checkpoints every 1,000 (a minute to write), a failure every 20,000 s of
/// the job and ten minutes to recover from each.
FailureCosts long_run() {
  FailureCosts costs;
  costs.iteration_s = 1.0;
  costs.iterations = 10'000'000;
  costs.checkpoint_every = 1000;
  costs.job_mtbf_s = 20'000.0;
  costs.checkpoint_s = 60.0;
  costs.recovery_s = 600.0;
  return costs;
}

TEST(FailureProjection, TheExpectationIsDalysRenewalFormPerSegment) {
  const FailureCosts costs = long_run();
  const FailureTotals expected = expected_failures(costs);
  const double segments = 10'000.0;  // the last one writes no checkpoint
  const double per_full = (20'000.0 + 600.0) * std::expm1(1060.0 / 20'000.0);
  const double last = (20'000.0 + 600.0) * std::expm1(1000.0 / 20'000.0);
  EXPECT_NEAR(expected.total_s, (segments - 1.0) * per_full + last, 1e-6 * expected.total_s);
  EXPECT_DOUBLE_EQ(expected.work_s, 1e7);
  EXPECT_DOUBLE_EQ(expected.checkpoint_s, 9'999.0 * 60.0);
  EXPECT_NEAR(expected.interruptions, (segments - 1.0) * std::expm1(1060.0 / 20'000.0) + std::expm1(0.05), 1e-9);
  EXPECT_NEAR(expected.recovery_s, 600.0 * expected.interruptions, 1e-6);
  EXPECT_NEAR(expected.work_s + expected.lost_work_s + expected.recovery_s + expected.checkpoint_s, expected.total_s, 1e-3);
  EXPECT_NEAR(young_daly_interval_s(costs), std::sqrt(2.0 * 60.0 * 20'000.0), 1e-9);
}

TEST(FailureProjection, WithoutFailuresTheRunIsItsWorkAndItsCheckpoints) {
  FailureCosts costs = long_run();
  costs.job_mtbf_s = 1e30;
  const FailureTotals expected = expected_failures(costs);
  EXPECT_NEAR(expected.total_s, 1e7 + 9'999.0 * 60.0, 1e-3);
  EXPECT_NEAR(expected.interruptions, 0.0, 1e-12);
  const FailureTotals drawn = *drawn_failures(costs, 7);
  EXPECT_EQ(drawn.interruptions, 0.0);
  EXPECT_DOUBLE_EQ(drawn.total_s, 1e7 + 9'999.0 * 60.0);
}

TEST(FailureProjection, RunsDrawnFromManySeedsLoseWhatTheRenewalProcessExpectsWithinTwoPercent) {
  const FailureCosts costs = long_run();
  const FailureTotals expected = expected_failures(costs);
  double interruptions = 0.0;
  double lost = 0.0;
  double total = 0.0;
  constexpr int kSeeds = 20;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const FailureTotals drawn = *drawn_failures(costs, seed);
    interruptions += drawn.interruptions / kSeeds;
    lost += drawn.lost_work_s / kSeeds;
    total += drawn.total_s / kSeeds;
  }
  EXPECT_NEAR(interruptions, expected.interruptions, 0.02 * expected.interruptions);
  EXPECT_NEAR(lost, expected.lost_work_s, 0.02 * expected.lost_work_s);
  EXPECT_NEAR(total, expected.total_s, 0.02 * (expected.total_s - expected.work_s));
}

TEST(FailureProjection, WithoutCheckpointsALongRunCannotBeExpectedToFinishAndIsNotDrawn) {
  FailureCosts costs = long_run();
  costs.checkpoint_every = 0;
  costs.checkpoint_s = 0.0;
  const FailureTotals expected = expected_failures(costs);
  EXPECT_NEAR(std::log(expected.interruptions), 1e7 / 20'000.0, 1e-6);  // e^(run / mtbf) - 1
  EXPECT_GT(expected.interruptions, kDrawnInterruptionLimit);
  EXPECT_FALSE(drawn_failures(costs, 1).has_value());
}

}  // namespace
}  // namespace dtsim::metrics
