// A budget's failures as a renewal process: the expectation against its closed form's parts, and runs drawn
// from many seeds against the expectation.

#include "sim/metrics/failure_projection.hpp"
#include "sim/scenario/failure_catalog.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

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

// Daly's renewal form per segment, with a failure's cost counting the failures that strike its recovery (each
// noticed after the step that follows it) and the half step a failure loses beyond its moment; a failure while a
// checkpoint is written is noticed after the next step.
TEST(FailureProjection, TheExpectationIsDalysRenewalFormPerSegment) {
  const FailureCosts costs = long_run();
  const FailureTotals expected = expected_failures(costs);
  const double segments = 10'000.0;  // the last one writes no checkpoint
  const double q = 1.0 - std::exp(-600.0 / 20'000.0);
  const double cost = (600.0 + q * 1.0) / (1.0 - q);
  const double p = 1.0 - std::exp(-60.0 / 20'000.0);
  const double work = (20'000.0 + cost + 0.5) * std::expm1(1000.0 / 20'000.0);
  const double per_full = work + 60.0 + p * (1.0 + cost);
  EXPECT_NEAR(expected.total_s, (segments - 1.0) * per_full + work, 1e-6 * expected.total_s);
  EXPECT_DOUBLE_EQ(expected.work_s, 1e7);
  EXPECT_DOUBLE_EQ(expected.checkpoint_s, 9'999.0 * 60.0);
  EXPECT_NEAR(expected.interruptions, (segments * std::expm1(0.05) + (segments - 1.0) * p) / (1.0 - q), 1e-9);
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

// Asynchronous checkpoints: the job waits 5 s for each copy to host memory, and the 300 s of writing in the
// background add to what a failure loses.
TEST(FailureProjection, RunsWithAsynchronousCheckpointsLoseWhatTheClosedFormExpectsWithinTwoPercent) {
  FailureCosts costs = long_run();
  costs.checkpoint_s = 5.0;
  costs.background_s = 300.0;
  const FailureTotals expected = expected_failures(costs);
  EXPECT_LT(expected.total_s, expected_failures(long_run()).total_s);
  double lost = 0.0;
  double total = 0.0;
  constexpr int kSeeds = 20;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const FailureTotals drawn = *drawn_failures(costs, seed);
    lost += drawn.lost_work_s / kSeeds;
    total += drawn.total_s / kSeeds;
  }
  EXPECT_NEAR(lost, expected.lost_work_s, 0.02 * expected.lost_work_s);
  EXPECT_NEAR(total, expected.total_s, 0.02 * (expected.total_s - expected.work_s));
}

/// Twenty thousand one-second iterations, a failure every 10,000 s of the job, and a recovery of a minute to detect
/// and restart plus `read_s` to read the checkpoint back, as long as writing one.
FailureCosts slow_storage(std::int64_t every, double read_s) {
  FailureCosts costs;
  costs.iteration_s = 1.0;
  costs.iterations = 20'000;
  costs.checkpoint_every = every;
  costs.job_mtbf_s = 10'000.0;
  costs.checkpoint_s = read_s;
  costs.load_s = read_s;
  costs.recovery_s = 60.0 + read_s;
  return costs;
}

/// A quantity's mean over drawn runs and that mean's standard error.
struct Sample {
  double mean = 0.0;
  double error = 0.0;
};

Sample sample_of(const std::vector<double>& values) {
  const auto n = static_cast<double>(values.size());
  double sum = 0.0;
  for (const double value : values) sum += value;
  const double mean = sum / n;
  double squares = 0.0;
  for (const double value : values) squares += (value - mean) * (value - mean);
  return {mean, std::sqrt(squares / (n - 1.0) / n)};
}

/// Asserts that the means of `draws` runs drawn from seeds 1 on agree with the expectation within four standard
/// errors: the interruptions, the recovery, the checkpoints read back and the total.
void expect_draws_agree(const FailureCosts& costs, int draws) {
  const FailureTotals expected = expected_failures(costs);
  std::vector<double> interruptions;
  std::vector<double> recovery;
  std::vector<double> load;
  std::vector<double> total;
  for (int seed = 1; seed <= draws; ++seed) {
    const FailureTotals drawn = *drawn_failures(costs, static_cast<std::uint64_t>(seed));
    interruptions.push_back(drawn.interruptions);
    recovery.push_back(drawn.recovery_s);
    load.push_back(drawn.load_s);
    total.push_back(drawn.total_s);
  }
  const auto agree = [](const char* name, double want, const Sample& got) {
    EXPECT_NEAR(got.mean, want, 4.0 * got.error) << name << ": " << got.mean << " +- " << got.error;
  };
  agree("interruptions", expected.interruptions, sample_of(interruptions));
  agree("recovery_s", expected.recovery_s, sample_of(recovery));
  agree("total_s", expected.total_s, sample_of(total));
  const Sample read = sample_of(load);
  if (read.error > 0.0) {
    agree("load_s", expected.load_s, read);
  } else {
    EXPECT_EQ(expected.load_s, read.mean);  // no draw read a checkpoint back, and none is expected to
  }
}

// A checkpoint interval longer than the run: no checkpoint is ever written, and each failure rolls back to the
// beginning with nothing to read, so an interruption costs the minute to detect and restart, not the 3,000 s read.
// The run is 2 mtbf long: e^2 - 1 = 6.39 failures, each costing C = (60 + q) / (1 - q) with q = 1 - e^(-60/10,000).
TEST(FailureProjection, BeforeTheFirstCheckpointAFailureReadsNothingBackExpectedAsDrawn) {
  const FailureCosts costs = slow_storage(100'000'000, 3'000.0);
  EXPECT_EQ(checkpoints_written(costs), 0);
  EXPECT_DOUBLE_EQ(costs.read_s(), 0.0);
  EXPECT_DOUBLE_EQ(costs.interruption_s(), 60.0);
  const FailureTotals expected = expected_failures(costs);
  const double q = -std::expm1(-60.0 / 10'000.0);
  const double cost = (60.0 + q * 1.0) / (1.0 - q);
  EXPECT_NEAR(expected.interruptions, std::expm1(2.0) / (1.0 - q), 1e-9);
  EXPECT_NEAR(expected.total_s, (10'000.0 + cost + 0.5) * std::expm1(2.0), 1e-6);
  EXPECT_NEAR(expected.recovery_s, 60.0 * expected.interruptions, 1e-9);
  EXPECT_EQ(expected.load_s, 0.0);
  EXPECT_EQ(expected.checkpoint_s, 0.0);
  // Some 6.4 failures a run, spread as widely: 2,000 draws put the means' standard errors near 2%.
  expect_draws_agree(costs, 2'000);
}

// Checkpoints every 5,000 iterations (three written, 1,000 s each to write or read): the first segment's failures
// read nothing (e^0.5 - 1 of them, each chain 1 / (1 - q0) long, q0 = 1 - e^(-60/10,000)); those of the three
// later segments and of the three writings each read the checkpoint back (chains 1 / (1 - q1) long,
// q1 = 1 - e^(-1,060/10,000)).
TEST(FailureProjection, OnlyFailuresAfterTheFirstCheckpointReadItBackExpectedAsDrawn) {
  const FailureCosts costs = slow_storage(5'000, 1'000.0);
  EXPECT_EQ(checkpoints_written(costs), 3);
  EXPECT_DOUBLE_EQ(costs.interruption_s(), 1'060.0);
  const FailureTotals expected = expected_failures(costs);
  const double q0 = -std::expm1(-60.0 / 10'000.0);
  const double q1 = -std::expm1(-1'060.0 / 10'000.0);
  const double p = -std::expm1(-1'000.0 / 10'000.0);
  const double unread = std::expm1(0.5) / (1.0 - q0);
  const double read = (3.0 * std::expm1(0.5) + 3.0 * p) / (1.0 - q1);
  EXPECT_NEAR(expected.interruptions, unread + read, 1e-9);
  EXPECT_NEAR(expected.load_s, 1'000.0 * read, 1e-6);
  EXPECT_NEAR(expected.recovery_s, 60.0 * unread + 1'060.0 * read, 1e-6);
  // Some 3.1 failures a run: 2,000 draws put the means' standard errors near 2% (the total's near 0.5%).
  expect_draws_agree(costs, 2'000);
}

TEST(FailureProjection, WithoutCheckpointsALongRunCannotBeExpectedToFinishAndIsNotDrawn) {
  FailureCosts costs = long_run();
  costs.checkpoint_every = 0;
  costs.checkpoint_s = 0.0;
  const FailureTotals expected = expected_failures(costs);
  const double q = 1.0 - std::exp(-600.0 / 20'000.0);  // a recovery's chance of meeting a failure
  EXPECT_NEAR(std::log(expected.interruptions * (1.0 - q)), 1e7 / 20'000.0, 1e-6);  // (e^(run / mtbf) - 1) / (1 - q)
  EXPECT_GT(expected.interruptions, kDrawnInterruptionLimit);
  EXPECT_FALSE(drawn_failures(costs, 1).has_value());
}

// A component's mtbf of 1 ns over 8 devices: the job fails every 1.25e-10 s, and each 600 s recovery is struck to
// the last bit (the one cause's share of the rate rounds to 1 + 2^-52). With checkpoints or without, the run never
// resumes: infinitely many interruptions and an infinite run, never a negative count or NaN, and none drawn.
TEST(FailureProjection, AJobFailingFarFasterThanItRecoversNeverEnds) {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  for (const bool by_cause : {false, true}) {
    for (const std::int64_t every : {std::int64_t{0}, std::int64_t{1000}}) {
      FailureCosts costs = long_run();
      if (by_cause) costs.causes = {{"gpu", 1e-9 / 8.0}};
      costs.job_mtbf_s = by_cause ? combined_mtbf_s(costs.causes) : 1e-9 / 8.0;
      costs.checkpoint_every = every;
      costs.checkpoint_s = every > 0 ? 60.0 : 0.0;
      const FailureTotals expected = expected_failures(costs);
      EXPECT_EQ(expected.interruptions, kNever) << by_cause << " " << every;
      EXPECT_EQ(expected.total_s, kNever) << by_cause << " " << every;
      EXPECT_EQ(expected.lost_work_s, kNever) << by_cause << " " << every;
      EXPECT_EQ(expected.recovery_s, kNever) << by_cause << " " << every;
      EXPECT_DOUBLE_EQ(expected.work_s, 1e7);
      EXPECT_EQ(expected.goodput(), 0.0);
      for (const double share : expected.interruptions_by_cause) EXPECT_EQ(share, kNever);
      EXPECT_FALSE(drawn_failures(costs, 1).has_value());
    }
  }
}

// A budget of 10^18 tokens checkpointed every 100 iterations writes 10^10 checkpoints: its expectation is a closed
// form all the same, and no run is walked checkpoint by checkpoint (days of it).
TEST(FailureProjection, ARunOfMoreCheckpointsThanADrawWalksIsExpectedButNotDrawn) {
  FailureCosts costs = long_run();
  costs.iterations = 1'000'000'000'000;
  costs.checkpoint_every = 100;
  costs.job_mtbf_s = 1e30;
  EXPECT_EQ(checkpoints_written(costs), 9'999'999'999);
  const FailureTotals expected = expected_failures(costs);
  EXPECT_NEAR(expected.total_s, 1e12 + 9'999'999'999.0 * 60.0, 1e-9 * expected.total_s);
  EXPECT_FALSE(drawn_failures(costs, 1).has_value());
}

/// The same run with three causes: a job mtbf of 40,000, 66,666.7 and 100,000 s (shares 0.5, 0.3, 0.2), 20,000 s
/// together.
FailureCosts three_causes() {
  FailureCosts costs = long_run();
  costs.causes = {{"gpu", 40'000.0}, {"network", 200'000.0 / 3.0}, {"host", 100'000.0}};
  return costs;
}

TEST(FailureProjection, EachCauseHasItsShareOfTheInterruptionsExpectedAndDrawn) {
  const FailureCosts costs = three_causes();
  const FailureTotals expected = expected_failures(costs);
  EXPECT_DOUBLE_EQ(expected.total_s, expected_failures(long_run()).total_s);  // the causes share one rate
  const double shares[] = {0.5, 0.3, 0.2};
  std::vector<double> drawn(3, 0.0);
  double interruptions = 0.0;
  constexpr int kSeeds = 20;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const FailureTotals one = *drawn_failures(costs, seed);
    double sum = 0.0;
    for (std::size_t c = 0; c < 3; ++c) {
      drawn[c] += one.interruptions_by_cause[c];
      sum += one.interruptions_by_cause[c];
    }
    EXPECT_EQ(sum, one.interruptions);
    interruptions += one.interruptions;
  }
  for (std::size_t c = 0; c < 3; ++c) {
    EXPECT_NEAR(expected.interruptions_by_cause[c], shares[c] * expected.interruptions, 1e-9 * expected.interruptions);
    // Some 10,800 interruptions over the seeds: a share's standard error is under 0.5%.
    EXPECT_NEAR(drawn[c] / interruptions, shares[c], 0.02) << costs.causes[c].name;
  }
}

TEST(FailureProjection, TheBestCheckpointIntervalIsNoWorseThanItsNeighboursAndNearYoungDalys) {
  FailureCosts costs = long_run();
  const BestInterval best = *best_checkpoint_interval(costs);
  const auto total = [&](std::int64_t every) {
    FailureCosts at = costs;
    at.checkpoint_every = every;
    return expected_failures(at).total_s;
  };
  EXPECT_DOUBLE_EQ(best.total_s, total(best.every));
  for (const std::int64_t other : {best.every - 1, best.every + 1, best.every / 2, 2 * best.every, std::int64_t{1000}}) {
    EXPECT_LE(best.total_s, total(other)) << other;
  }
  // Young/Daly's first-order interval, sqrt(2 x 60 x 20,000) = 1,549 s, is near the best when the checkpoint
  // is short against the mtbf; the best is shorter, as Daly's higher-order terms say.
  const double young = young_daly_interval_s(costs);
  EXPECT_NEAR(static_cast<double>(best.every), young, 0.15 * young);
  EXPECT_LT(static_cast<double>(best.every), young);
  costs.checkpoint_s = 0.0;
  EXPECT_FALSE(best_checkpoint_interval(costs).has_value());
}

TEST(FailureCatalog, Llama3RatesGiveTheReportsInterruptionsOverItsClusterAndSnapshot) {
  const scenario::FailureCatalog catalog = *scenario::find_failure_catalog("llama3_2024");
  double rate = 0.0;
  for (const scenario::ComponentFailures& kind : catalog.components) {
    rate += (kind.per == scenario::ComponentUnit::Device ? 16'384.0 : 2'048.0) / kind.mtbf_s;
  }
  // 419 interruptions in 54 days: one every 3.09 hours of the job.
  EXPECT_NEAR(rate * 54.0 * 86'400.0, 419.0, 1e-9);
  EXPECT_NEAR(catalog.components.front().mtbf_s / 3600.0, 16'384.0 * 54.0 * 24.0 / 196.0, 1e-6);  // 108,335 h a GPU
  EXPECT_FALSE(scenario::find_failure_catalog("llama3").has_value());
}

}  // namespace
}  // namespace dtsim::metrics
