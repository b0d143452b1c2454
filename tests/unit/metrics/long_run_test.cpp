// The event-level long run on hand-built schedules: one-second iterations, a checkpoint every ten (written at
// once, read back in 2 s), 5 s to detect and restart; its repairs waited for, taken over by a hot spare, or
// gone around by shrinking the data-parallel degree until a checkpoint after the repair.

#include "sim/metrics/long_run.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace dtsim::metrics {
namespace {

LongRunCosts hand_built() {
  LongRunCosts costs;
  costs.iteration_s = 1.0;
  costs.iterations = 100;
  costs.checkpoint_every = 10;
  costs.load_s = 2.0;
  costs.restart_s = 5.0;
  return costs;
}

/// Worker 0 fails at each (time, repair).
FailureSources failing_at(const std::vector<std::pair<double, double>>& failures) {
  scenario::FailureSpec spec;
  spec.enabled = true;
  for (const auto& [at, repair] : failures) spec.events.push_back({0, at, repair, {}});
  return FailureSources(FailureSchedule(spec, 1, 1), {}, 1);
}

TEST(LongRun, WithoutASpareTheJobWaitsForTheRepair) {
  // Struck at 15.5 s, noticed at the end of iteration 16: six iterations since the checkpoint at 10 are lost,
  // then 20 s of repair, 5 of restart, 2 of reading back.
  const LongRun run = walk_long_run(hand_built(), failing_at({{15.5, 20.0}}));
  ASSERT_EQ(run.interruptions.size(), 1U);
  EXPECT_EQ(run.interruptions[0].iteration, 16);
  EXPECT_EQ(run.interruptions[0].lost_iterations, 6);
  EXPECT_DOUBLE_EQ(run.interruptions[0].noticed_s, 16.0);
  EXPECT_DOUBLE_EQ(run.interruptions[0].resumed_s, 43.0);
  EXPECT_DOUBLE_EQ(run.total_s, 100.0 + 6.0 + 27.0);
  EXPECT_DOUBLE_EQ(run.lost_work_s, 6.0);
  EXPECT_DOUBLE_EQ(run.recovery_s, 27.0);
}

TEST(LongRun, AHotSpareSparesTheRepairAndASecondFailureWaitsForTheFirstSpareBack) {
  LongRunCosts costs = hand_built();
  costs.spares = 1;
  // The spare takes the first failed node's place; that node is repaired by 16 + 50 = 66 s. The second failure
  // (40.5 s, noticed at 41 s after iteration 28) finds no spare free and waits for it: 25 s, not its own 50.
  const LongRun run = walk_long_run(costs, failing_at({{15.5, 50.0}, {40.5, 50.0}}));
  ASSERT_EQ(run.interruptions.size(), 2U);
  EXPECT_DOUBLE_EQ(run.interruptions[0].resumed_s, 23.0);
  EXPECT_EQ(run.interruptions[1].iteration, 28);
  EXPECT_DOUBLE_EQ(run.interruptions[1].noticed_s, 41.0);
  EXPECT_DOUBLE_EQ(run.interruptions[1].resumed_s, 41.0 + 25.0 + 7.0);
  EXPECT_EQ(run.spares_used, 2);
  EXPECT_DOUBLE_EQ(run.total_s, 100.0 + 6.0 + 8.0 + 7.0 + 32.0);
}

TEST(LongRun, AShrunkJobGoesOnSlowerAndGrowsBackAtTheFirstCheckpointAfterTheRepair) {
  LongRunCosts costs = hand_built();
  costs.shrink = true;
  costs.replicas = 4;
  // Noticed at 16 s, back at 23 s on three replicas of four: iterations take 4/3 s. The node is repaired at
  // 46 s; the checkpoint at iteration 20 (36.33 s) is before that, the one at 30 (49.67 s) after: a restart and a
  // read (7 s), then full width.
  const LongRun run = walk_long_run(costs, failing_at({{15.5, 30.0}}));
  ASSERT_EQ(run.interruptions.size(), 1U);
  EXPECT_TRUE(run.interruptions[0].shrunk);
  EXPECT_DOUBLE_EQ(run.interruptions[0].resumed_s, 23.0);
  EXPECT_EQ(run.regrowths, 1);
  EXPECT_NEAR(run.shrunk_s, 20.0 / 3.0, 1e-12);
  EXPECT_NEAR(run.total_s, 100.0 + 6.0 + 7.0 + 7.0 + 20.0 / 3.0, 1e-9);
}

TEST(LongRun, AFailureDuringARecoveryIsNoticedAfterTheNextStep) {
  // The second failure strikes while the job restarts (16 s to 43 s) and costs the first step after it.
  const LongRun run = walk_long_run(hand_built(), failing_at({{15.5, 20.0}, {30.0, 0.0}}));
  ASSERT_EQ(run.interruptions.size(), 2U);
  EXPECT_DOUBLE_EQ(run.interruptions[1].noticed_s, 44.0);
  EXPECT_EQ(run.interruptions[1].lost_iterations, 1);
  EXPECT_DOUBLE_EQ(run.interruptions[1].resumed_s, 44.0 + 7.0);
  EXPECT_DOUBLE_EQ(run.total_s, 100.0 + 6.0 + 27.0 + 1.0 + 7.0);
}

TEST(LongRun, TheLastStepNoticesNothing) {
  const LongRun run = walk_long_run(hand_built(), failing_at({{99.5, 10.0}}));
  EXPECT_TRUE(run.interruptions.empty());
  EXPECT_DOUBLE_EQ(run.total_s, 100.0);
}

TEST(LongRun, AFailureBeforeAnAsynchronousCheckpointIsWrittenRollsBackToThePreviousOne) {
  LongRunCosts costs = hand_built();
  costs.checkpoint_s = 0.5;  // the copy to host memory
  costs.background_s = 4.0;
  // The checkpoint of iteration 10 is taken at 10.5 s and written by 14.5 s; that of iteration 20 is taken at
  // 21 s and would be written by 25 s. A failure at 21.7 s, noticed at 22 s, rolls back to iteration 10: eleven
  // iterations lost. Then 90 iterations and eight copies.
  const LongRun run = walk_long_run(costs, failing_at({{21.7, 0.0}}));
  ASSERT_EQ(run.interruptions.size(), 1U);
  EXPECT_EQ(run.interruptions[0].lost_iterations, 11);
  EXPECT_DOUBLE_EQ(run.interruptions[0].resumed_s, 29.0);
  EXPECT_DOUBLE_EQ(run.checkpoint_s, 10 * 0.5);
  EXPECT_DOUBLE_EQ(run.total_s, 29.0 + 90.0 + 8 * 0.5);
  EXPECT_DOUBLE_EQ(run.lost_work_s, 11.0);
}

TEST(LongRun, AnAsynchronousCheckpointWaitsForThePreviousOnesWriting) {
  LongRunCosts costs = hand_built();
  costs.checkpoint_s = 0.5;
  costs.background_s = 15.0;
  // Each checkpoint's writing (15 s) outlasts the ten iterations after it: every checkpoint after the first
  // waits 5 s for the one before (10 s of iterations after its 15 s began), then copies for 0.5 s.
  const LongRun run = walk_long_run(costs, failing_at({}));
  EXPECT_DOUBLE_EQ(run.checkpoint_s, 0.5 + 8 * 5.5);
  EXPECT_DOUBLE_EQ(run.total_s, 100.0 + 0.5 + 8 * 5.5);
}

TEST(LongRun, AWalkStopsAtItsLimitAndSaysItWasCut) {
  LongRunCosts costs = hand_built();
  costs.interruption_limit = 2;
  EXPECT_FALSE(walk_long_run(costs, failing_at({{15.5, 0.0}})).cut);
  const LongRun cut = walk_long_run(costs, failing_at({{15.5, 0.0}, {30.5, 0.0}, {50.5, 0.0}}));
  EXPECT_TRUE(cut.cut);
  EXPECT_EQ(cut.interruptions.size(), 2U);
}

}  // namespace
}  // namespace dtsim::metrics
