// Transfers of several jobs sharing link directions (topology/activity_sharing.hpp): rates against hand-computed
// progressive filling, a job never slowed by itself, a rate of exactly 1 for a transfer that meets no other job,
// and another job's bursts met only as often as it moves bytes, unless the two are in step.

#include "sim/topology/activity_sharing.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace dtsim::topology {
namespace {

TEST(SharedRates, TwoJobsFillingOneDirectionEachGetHalf) {
  const std::vector<TransferLoad> transfers{{0, {{0, 1.0}}}, {1, {{0, 1.0}}}};
  EXPECT_EQ(shared_rates(transfers), (std::vector<double>{0.5, 0.5}));
}

TEST(SharedRates, AJobIsNeverSlowedByItsOwnTransfers) {
  const std::vector<TransferLoad> transfers{{0, {{0, 1.0}, {3, 0.7}}}, {0, {{0, 1.0}, {3, 0.7}}}};
  EXPECT_EQ(shared_rates(transfers), (std::vector<double>{1.0, 1.0}));
}

TEST(SharedRates, JobsOnDisjointDirectionsOrFittingTogetherKeepARateOfExactlyOne) {
  const std::vector<TransferLoad> apart{{0, {{0, 1.0}}}, {1, {{1, 1.0}}}};
  EXPECT_EQ(shared_rates(apart), (std::vector<double>{1.0, 1.0}));
  const std::vector<TransferLoad> fitting{{0, {{0, 0.3}}}, {1, {{0, 0.3}}}, {2, {{0, 0.4}}}};
  EXPECT_EQ(shared_rates(fitting), (std::vector<double>{1.0, 1.0, 1.0}));
}

TEST(SharedRates, ProgressiveFillingFreesWhatTheFirstFullDirectionLeaves) {
  // Direction 0: a + b <= 1 fills at 1/2. Direction 1: b + c/2 <= 1, with b fixed at 1/2, leaves c its whole pace.
  const std::vector<TransferLoad> transfers{{0, {{0, 1.0}}}, {1, {{0, 1.0}, {1, 1.0}}}, {2, {{1, 0.5}}}};
  EXPECT_EQ(shared_rates(transfers), (std::vector<double>{0.5, 0.5, 1.0}));
  // When c asks all of direction 1, both directions fill at 1/2: a + b <= 1 and b + c <= 1.
  const std::vector<TransferLoad> three{{0, {{0, 1.0}}}, {1, {{0, 1.0}, {1, 1.0}}}, {2, {{1, 1.0}}}};
  EXPECT_EQ(shared_rates(three), (std::vector<double>{0.5, 0.5, 0.5}));
  // A lighter user of the full direction: a/4 + b <= 1 and b + c <= 1 at level 1/2 for b and c; then a/4 <= 1/2.
  const std::vector<TransferLoad> light{{0, {{0, 0.25}}}, {1, {{0, 1.0}, {1, 1.0}}}, {2, {{1, 1.0}}}};
  EXPECT_EQ(shared_rates(light), (std::vector<double>{1.0, 0.5, 0.5}));
}

TEST(SharedRates, AJobsOwnTransfersAreScaledTogetherBeforeMeetingAnother) {
  // Job 0 asks 1.6 of direction 0 in two transfers, scaled to 0.5 each; job 1 asks all of it: x/2 + x/2 + x <= 1.
  const std::vector<TransferLoad> transfers{{0, {{0, 0.8}}}, {0, {{0, 0.8}}}, {1, {{0, 1.0}}}};
  EXPECT_EQ(shared_rates(transfers), (std::vector<double>{0.5, 0.5, 0.5}));
}

TEST(SharedRates, FlowsShareFairlyNotTransfers) {
  // Weights 8 and 1 (eight flows of the same alone rate against one) on a full direction: 8x + x <= 1.
  const std::vector<TransferLoad> transfers{{0, {{0, 1.0}}, 8.0}, {1, {{0, 1.0}}, 1.0}};
  const std::vector<double> rates = shared_rates(transfers);
  EXPECT_DOUBLE_EQ(rates[0], 8.0 / 9.0);
  EXPECT_DOUBLE_EQ(rates[1], 1.0 / 9.0);
  // A heavy transfer reaches its alone pace first and leaves the rest: 4x caps at x = 1/4; then y <= 1 - 1/2.
  const std::vector<TransferLoad> capped{{0, {{0, 0.5}}, 4.0}, {1, {{0, 1.0}}, 1.0}};
  EXPECT_EQ(shared_rates(capped), (std::vector<double>{1.0, 0.5}));
}

TEST(SharedRates, AnotherJobsBurstsAreMetOnlyAsOftenAsItMovesBytes) {
  // GPT-2 XL's ring beside GPT-2 large's on an uplink (docs/cluster.md): the large job's one flow asks all of it,
  // the XL job's half (its flows are held elsewhere), 72% of its time, its rounds' latencies the rest. Both moving,
  // the XL job keeps its pace (weight 2) and the large one gets half; the XL job moving 72% of the time, the large
  // one gets 0.72 x 1/2 + 0.28 x 1.
  const std::vector<TransferLoad> apart{{0, {{0, 0.5}}, 2.0, 0.72, 1}, {1, {{0, 1.0}}, 1.0, 0.62, 2}};
  const std::vector<double> rates = shared_rates(apart);
  EXPECT_EQ(rates[0], 1.0);
  EXPECT_DOUBLE_EQ(rates[1], 0.64);
  // In step (one cadence: begun together, rounds alike), their bursts coincide.
  const std::vector<TransferLoad> in_step{{0, {{0, 0.5}}, 2.0, 0.72, 1}, {1, {{0, 1.0}}, 1.0, 0.72, 1}};
  EXPECT_EQ(shared_rates(in_step), (std::vector<double>{1.0, 0.5}));
}

TEST(SharedRates, ABurstsTimeMovingGrowsAsItsRateFalls) {
  // Two transfers asking all of one direction, each moving 70% of its alone time: each gets 1/2 while the other
  // moves, which it does a fraction b = 0.7 / (0.7 + 0.3 r) of the time at rate r, so r = 1 - b / 2, whose root
  // is r = (sqrt(0.58) - 0.4) / 0.6.
  const std::vector<TransferLoad> transfers{{0, {{0, 1.0}}, 1.0, 0.7, 1}, {1, {{0, 1.0}}, 1.0, 0.7, 2}};
  const std::vector<double> rates = shared_rates(transfers);
  EXPECT_NEAR(rates[0], (std::sqrt(0.58) - 0.4) / 0.6, 1e-10);
  EXPECT_EQ(rates[0], rates[1]);
}

TEST(SharedPace, LatencyIsNotStretched) {
  EXPECT_EQ(shared_pace(1.0, 0.3), 1.0);
  EXPECT_DOUBLE_EQ(shared_pace(0.5, 0.0), 0.5);
  // Half latency, half moving at half the rate: 0.5 + 0.5 / 0.5 = 1.5 times as long.
  EXPECT_DOUBLE_EQ(shared_pace(0.5, 0.5), 1.0 / 1.5);
}

}  // namespace
}  // namespace dtsim::topology
