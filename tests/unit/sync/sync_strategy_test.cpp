#include "sim/sync/sync_strategy.hpp"

#include <gtest/gtest.h>

namespace dtsim::sync {
namespace {

TEST(StalenessAware, LearningRateIsDividedByTheStaleness) {
  const StalenessAware strategy(1);
  EXPECT_DOUBLE_EQ(strategy.learning_rate_scale(0), 1.0);
  EXPECT_DOUBLE_EQ(strategy.learning_rate_scale(1), 1.0);
  EXPECT_DOUBLE_EQ(strategy.learning_rate_scale(4), 0.25);
  EXPECT_DOUBLE_EQ(strategy.learning_rate_scale(10), 0.1);
}

TEST(AdaptiveSsp, TheBoundGrowsWhenWorkersWaitAndShrinksWhenNoneDoes) {
  const AdaptiveSsp strategy(1, 3);
  EXPECT_EQ(strategy.staleness_bound(), 1);
  EXPECT_EQ(strategy.next_staleness_bound(1, true), 2);
  EXPECT_EQ(strategy.next_staleness_bound(3, true), 3);
  EXPECT_EQ(strategy.next_staleness_bound(2, false), 1);
  EXPECT_EQ(strategy.next_staleness_bound(1, false), 1);
  EXPECT_EQ(Ssp(2).next_staleness_bound(2, true), 2);
}

TEST(SyncRegistry, EveryStrategyIsConfiguredFromItsParameters) {
  SyncRegistry registry("sync strategy");
  register_builtin_strategies(registry);
  const SyncParameters parameters{.staleness = 3, .accumulate = 4};
  EXPECT_EQ(registry.find("ssp").factory(parameters)->staleness_bound(), 3);
  EXPECT_EQ(registry.find("bsp").factory(parameters)->staleness_bound(), 0);
  EXPECT_LT(registry.find("async").factory(parameters)->staleness_bound(), 0);
  EXPECT_EQ(registry.find("staleness_aware").factory(parameters)->accumulate(), 4);
  EXPECT_TRUE(registry.find("bsp").factory(parameters)->lock_step());
  for (const char* stale : {"ssp", "async", "staleness_aware"}) EXPECT_FALSE(registry.find(stale).factory(parameters)->lock_step());
  EXPECT_DOUBLE_EQ(registry.find("async").factory(parameters)->learning_rate_scale(7), 1.0);
}

}  // namespace
}  // namespace dtsim::sync
