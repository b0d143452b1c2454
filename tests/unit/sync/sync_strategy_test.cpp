#include "sim/sync/sync_strategy.hpp"
#include "sim/sync/outer_step.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

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

core::ParameterValues values(std::initializer_list<std::pair<const char*, const char*>> pairs) {
  core::ParameterValues out;
  for (const auto& [key, text] : pairs) out.set(key, text, core::SourcePosition("s.yaml"));
  return out;
}

/// The lock-step actions a strategy takes, one letter each: G averaged gradient, O own gradient, P averaged
/// parameters, N/A gossip with one neighbour / all, D DiLoCo's outer step, sP / mP fragment P sent / merged.
struct RecordedActions final : LockStepActions {
  std::string taken;
  void apply_averaged_gradient() override { taken += 'G'; }
  void apply_own_gradient() override { taken += 'O'; }
  void average_parameters() override { taken += 'P'; }
  void gossip(bool with_all) override { taken += with_all ? 'A' : 'N'; }
  void apply_site_averaged_gradient() override { taken += 'S'; }
  void outer_step(const OuterOptimizer& outer) override {
    taken += 'D';
    last_outer = outer;
  }
  void send_fragment(int fragment) override { taken += fmt::format("s{}", fragment); }
  void merge_fragment(int fragment) override { taken += fmt::format("m{}", fragment); }
  OuterOptimizer last_outer;
};

std::string actions_of(const SyncStrategy& strategy, std::int64_t iterations) {
  RecordedActions actions;
  for (std::int64_t i = 1; i <= iterations; ++i) {
    strategy.after_gradient(i, iterations, actions);
    actions.taken += ' ';
  }
  return actions.taken;
}

TEST(Diloco, InnerStepsThenTheOuterStepWithItsSettings) {
  SyncRegistry registry("sync strategy");
  register_builtin_strategies(registry);
  const auto diloco = registry.find("diloco").factory.make(values({{"inner_steps", "3"},
                                                                   {"outer_learning_rate", "0.5"},
                                                                   {"outer_momentum", "0.8"},
                                                                   {"nesterov", "false"},
                                                                   {"inner_sync", "worker"}}));
  RecordedActions actions;
  for (std::int64_t i = 1; i <= 7; ++i) {
    diloco->after_gradient(i, 7, actions);
    actions.taken += ' ';
  }
  EXPECT_EQ(actions.taken, "O O OD O O OD OD ");
  EXPECT_DOUBLE_EQ(actions.last_outer.learning_rate, 0.5);
  EXPECT_DOUBLE_EQ(actions.last_outer.momentum, 0.8);
  EXPECT_FALSE(actions.last_outer.nesterov);
  EXPECT_EQ(diloco->local_steps(), 3);
  EXPECT_FALSE(diloco->bulk_synchronous());
  EXPECT_TRUE(diloco->averages_in_lock_step());
  ASSERT_NE(diloco->outer_optimizer(), nullptr);
  EXPECT_EQ(registry.find("local_sgd").factory.make(values({{"local_steps", "3"}}))->outer_optimizer(), nullptr);
  // Hierarchical: each inner step is the site's.
  const auto by_site = registry.find("diloco").factory.make(values({{"inner_steps", "2"},
                                                                    {"outer_learning_rate", "0.7"},
                                                                    {"outer_momentum", "0.9"},
                                                                    {"nesterov", "true"},
                                                                    {"inner_sync", "site"}}));
  RecordedActions site_actions;
  for (std::int64_t i = 1; i <= 3; ++i) by_site->after_gradient(i, 3, site_actions);
  EXPECT_EQ(site_actions.taken, "SSDSD");
  EXPECT_TRUE(by_site->steps_with_its_site());
  EXPECT_FALSE(diloco->steps_with_its_site());
}

TEST(StreamingDiloco, InnerStepsThenEachFragmentSentAndMergedInItsTurn) {
  SyncRegistry registry("sync strategy");
  register_builtin_strategies(registry);
  const auto streaming = registry.find("streaming_diloco")
                             .factory.make(values({{"inner_steps", "4"},
                                                   {"fragments", "2"},
                                                   {"overlap_steps", "1"},
                                                   {"mixing", "0.5"},
                                                   {"outer_precision", "fp4"},
                                                   {"outer_learning_rate", "0.4"},
                                                   {"outer_momentum", "0.9"},
                                                   {"nesterov", "true"},
                                                   {"inner_sync", "worker"}}));
  EXPECT_EQ(actions_of(*streaming, 7), "O O O Os0 Om0 Os1 Om1s0m0s1m1 ");
  ASSERT_NE(streaming->streaming(), nullptr);
  EXPECT_EQ(streaming->streaming()->fragments, 2);
  EXPECT_EQ(streaming->streaming()->precision, OuterPrecision::fp4);
  EXPECT_DOUBLE_EQ(streaming->outer_optimizer()->learning_rate, 0.4);
  EXPECT_EQ(streaming->local_steps(), 4);
  EXPECT_EQ(registry.find("diloco")
                .factory
                .make(values({{"inner_steps", "3"},
                              {"outer_learning_rate", "0.7"},
                              {"outer_momentum", "0.9"},
                              {"nesterov", "true"},
                              {"inner_sync", "worker"}}))
                ->streaming(),
            nullptr);
}

TEST(Diloco, TheOuterStepIsPyTorchsSgdWithNesterovMomentum) {
  // Worked by hand: g = (1, -2), lr 0.5, momentum 0.9. Step 1: v = g; Nesterov steps by g + 0.9 v = 1.9 g,
  // x = (10, 10) - 0.5 (1.9, -3.8) = (9.05, 11.9). Step 2 with g' = (1, 0): v = 0.9 (1, -2) + (1, 0) = (1.9,
  // -1.8); the step g' + 0.9 v = (2.71, -1.62); x = (9.05 - 1.355, 11.9 + 0.81).
  std::vector<float> x{10.0F, 10.0F};
  std::vector<float> velocity;
  const OuterOptimizer nesterov{0.5, 0.9, true};
  EXPECT_DOUBLE_EQ(apply_outer_step(x, velocity, std::vector<float>{1.0F, -2.0F}, nesterov), 12.0);
  EXPECT_NEAR(x[0], 9.05, 1e-5);
  EXPECT_NEAR(x[1], 11.9, 1e-5);
  apply_outer_step(x, velocity, std::vector<float>{1.0F, 0.0F}, nesterov);
  EXPECT_NEAR(x[0], 9.05 - 1.355, 1e-5);
  EXPECT_NEAR(x[1], 11.9 + 0.81, 1e-5);
  // Heavy-ball steps by v itself; no momentum is plain SGD, and with a learning rate of 1 the global
  // parameters less the mean outer gradient are the workers' mean.
  std::vector<float> y{10.0F};
  std::vector<float> v;
  apply_outer_step(y, v, std::vector<float>{2.0F}, OuterOptimizer{0.5, 0.9, false});
  apply_outer_step(y, v, std::vector<float>{2.0F}, OuterOptimizer{0.5, 0.9, false});
  EXPECT_NEAR(y[0], 10.0 - 0.5 * 2.0 - 0.5 * 3.8, 1e-5);
  std::vector<float> z{4.0F};
  std::vector<float> none;
  apply_outer_step(z, none, std::vector<float>{4.0F - 1.5F}, OuterOptimizer{1.0, 0.0, true});
  EXPECT_FLOAT_EQ(z[0], 1.5F);
  EXPECT_TRUE(none.empty());
}

TEST(LockStep, EachStrategySaysWhatFollowsAGradient) {
  EXPECT_EQ(actions_of(Bsp(), 3), "G G G ");
  // Averaged every third step, and after the last.
  EXPECT_EQ(actions_of(LocalSgd(3), 7), "O O OP O O OP OP ");
  EXPECT_EQ(actions_of(Gossip(true), 2), "OA OA ");
  EXPECT_EQ(actions_of(Gossip(false), 2), "ON ON ");
}

/// The push actions a parameter-server worker takes, one letter each: P pushes its gradient, L steps locally,
/// H pushes what it holds, F pushes it only because training ends. A local step makes an update of relative
/// size `step_size`, held until pushed.
struct RecordedPushes final : PushActions {
  explicit RecordedPushes(double size) : step_size(size) {}
  double step_size;
  Held held;
  std::string taken;
  void push_gradient() override { taken += 'P'; }
  Held step_locally() override {
    taken += 'L';
    held.relative += step_size;
    ++held.steps;
    return held;
  }
  void push_held(bool forced) override {
    taken += forced ? 'F' : 'H';
    held = {};
  }
};

std::string pushes_of(const SyncStrategy& strategy, std::int64_t iterations, double step_size = 0.0) {
  RecordedPushes actions(step_size);
  for (std::int64_t i = 1; i <= iterations; ++i) {
    strategy.after_gradient_with_servers(i, iterations, actions);
    actions.taken += ' ';
  }
  return actions.taken;
}

TEST(ParameterServerWorker, EachStrategySaysWhatFollowsAGradient) {
  EXPECT_EQ(pushes_of(Async(), 3), "P P P ");
  EXPECT_EQ(pushes_of(Ssp(2), 2), "P P ");
  EXPECT_EQ(pushes_of(StalenessAware(2), 2), "P P ");
  // At most three steps held; small steps wait for the limit, and what is left goes after the last.
  EXPECT_EQ(pushes_of(Approximate(1.0, 3), 7, 0.1), "L L LH L L LH LF ");
  // Steps of 0.4 pass the threshold of 0.5 on the second.
  EXPECT_EQ(pushes_of(Approximate(0.5, 10), 5, 0.4), "L LH L LH LF ");
}

TEST(SyncRegistry, EveryStrategyIsConfiguredFromItsOwnParameters) {
  SyncRegistry registry("sync strategy");
  register_builtin_strategies(registry);
  EXPECT_EQ(registry.find("ssp").factory.make(values({{"staleness", "3"}}))->staleness_bound(), 3);
  EXPECT_EQ(registry.find("bsp").factory.make(values({}))->staleness_bound(), 0);
  EXPECT_LT(registry.find("async").factory.make(values({{"lock", "false"}}))->staleness_bound(), 0);
  const auto aware = registry.find("staleness_aware").factory.make(values({{"accumulate", "4"}, {"lock", "true"}}));
  EXPECT_EQ(aware->accumulate(), 4);
  EXPECT_TRUE(aware->locked());
  EXPECT_TRUE(registry.find("bsp").factory.make(values({}))->lock_step());
  EXPECT_TRUE(registry.find("gossip").factory.make(values({{"peers", "all"}}))->gossip_with_all());
  EXPECT_EQ(registry.find("local_sgd").factory.make(values({{"local_steps", "4"}}))->local_steps(), 4);
  const auto approximate =
      registry.find("approximate").factory.make(values({{"threshold", "0.5"}, {"max_delay", "3"}, {"lock", "false"}}));
  EXPECT_FALSE(approximate->send_now(0.4, 2));
  EXPECT_TRUE(approximate->send_now(0.6, 2));
  EXPECT_TRUE(approximate->send_now(0.1, 3));
  EXPECT_DOUBLE_EQ(aware->learning_rate_scale(4), 0.25);
}

// The predicates the checks ask are named once: bsp is bulk-synchronous; local SGD averages over every
// worker in lock step, between local steps; gossip averages with neighbours; ssp and async are not lock step.
TEST(SyncRegistry, BulkSynchronousAndLockStepAveragingAreNamedOnce) {
  SyncRegistry registry("sync strategy");
  register_builtin_strategies(registry);
  const auto bsp = registry.find("bsp").factory.make(values({}));
  const auto local = registry.find("local_sgd").factory.make(values({{"local_steps", "4"}}));
  const auto gossip = registry.find("gossip").factory.make(values({{"peers", "all"}}));
  const auto ssp = registry.find("ssp").factory.make(values({{"staleness", "3"}}));
  EXPECT_TRUE(bsp->bulk_synchronous());
  EXPECT_TRUE(bsp->averages_in_lock_step());
  EXPECT_FALSE(local->bulk_synchronous());
  EXPECT_TRUE(local->averages_in_lock_step());
  EXPECT_FALSE(gossip->bulk_synchronous());
  EXPECT_FALSE(gossip->averages_in_lock_step());
  EXPECT_FALSE(ssp->bulk_synchronous());
  EXPECT_FALSE(ssp->averages_in_lock_step());
}

// A strategy reads only what it declared: asking for anything else is a bug, reported as one.
TEST(SyncRegistry, AnUndeclaredParameterIsALogicError) {
  SyncRegistry registry("sync strategy");
  register_builtin_strategies(registry);
  EXPECT_THROW(static_cast<void>(registry.find("ssp").factory.make(values({}))), std::logic_error);
}

TEST(SyncRegistry, AdaptiveBoundsMustNotCross) {
  SyncRegistry registry("sync strategy");
  register_builtin_strategies(registry);
  core::DiagnosticSink sink;
  registry.find("adaptive_ssp").factory.check(values({{"staleness_min", "5"}, {"staleness_max", "2"}}), {}, sink);
  ASSERT_FALSE(sink.empty());
  core::DiagnosticSink fine;
  registry.find("adaptive_ssp").factory.check(values({{"staleness_min", "1"}, {"staleness_max", "2"}}), {}, fine);
  EXPECT_TRUE(fine.empty());
}

}  // namespace
}  // namespace dtsim::sync
