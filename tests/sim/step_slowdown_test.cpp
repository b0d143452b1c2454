// Random stragglers: each distribution's factors average to its declared mean, every worker draws from
// its own seeded stream, and a run charges each gradient step exactly its drawn factor.

#include "models/sgd.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/runtime/setup/step_slowdown.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/support/scenario_format.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace dtsim {
namespace {

scenario::RandomSlowdown rule(std::string distribution, double sigma, double mean, double probability, double factor) {
  scenario::RandomSlowdown out{.workers = {}, .distribution = std::move(distribution), .parameters = {}, .cluster_wide = false};
  const auto set = [&](const char* key, double value) { out.parameters.set(key, fmt::format("{}", value), {}); };
  if (out.distribution == "lognormal") set("sigma", sigma);
  if (out.distribution == "exponential") set("mean", mean);
  if (out.distribution == "bernoulli") {
    set("probability", probability);
    set("factor", factor);
  }
  return out;
}

TEST(StepSlowdown, EveryDistributionAveragesToItsDeclaredMeanWithinTwoPercent) {
  for (const scenario::RandomSlowdown& r :
       {rule("lognormal", 0.5, 0, 0, 1), rule("exponential", 0, 0.7, 0, 1), rule("bernoulli", 0, 0, 0.1, 4)}) {
    runtime::StepSlowdown draws({r}, 42, 3);
    double sum = 0.0;
    double smallest = 1e9;
    constexpr int kSteps = 200'000;
    for (int k = 0; k < kSteps; ++k) {
      const double f = draws.next();
      sum += f;
      smallest = std::min(smallest, f);
    }
    const double expected = runtime::StepSlowdown::mean_factor(r);
    EXPECT_NEAR(sum / kSteps, expected, 0.02 * expected) << r.distribution;
    EXPECT_GT(smallest, 0.0) << r.distribution;
    if (r.distribution != "lognormal") {
      EXPECT_GE(smallest, 1.0) << r.distribution;  // never faster than the device
    }
  }
  EXPECT_DOUBLE_EQ(runtime::StepSlowdown::mean_factor(rule("lognormal", 0.5, 0, 0, 1)), std::exp(0.125));
  EXPECT_DOUBLE_EQ(runtime::StepSlowdown::mean_factor(rule("bernoulli", 0, 0, 0.1, 4)), 1.3);
}

TEST(StepSlowdown, WorkersDrawFromTheirOwnSeededStreamsAndOnlyNamedOnesSlowDown) {
  scenario::RandomSlowdown named = rule("exponential", 0, 1.0, 0, 1);
  named.workers = {2};
  runtime::StepSlowdown two({named}, 7, 2);
  runtime::StepSlowdown two_again({named}, 7, 2);
  runtime::StepSlowdown other_seed({named}, 8, 2);
  runtime::StepSlowdown one({named}, 7, 1);
  EXPECT_TRUE(one.empty());
  const double first = two.next();
  EXPECT_EQ(first, two_again.next());
  EXPECT_NE(first, other_seed.next());
  EXPECT_EQ(one.next(), 1.0);
  runtime::StepSlowdown everyone_three({rule("exponential", 0, 1.0, 0, 1)}, 7, 3);
  EXPECT_NE(everyone_three.next(), first);  // another rank, another stream
}

// Cluster-wide: every worker's n-th step gets the same factor, whatever its own rules draw besides.
TEST(StepSlowdown, ClusterWideRulesGiveEveryWorkerTheSameFactorPerStep) {
  scenario::RandomSlowdown cluster = rule("bernoulli", 0, 0, 0.2, 3);
  cluster.cluster_wide = true;
  runtime::StepSlowdown zero({cluster}, 5, 0);
  runtime::StepSlowdown six({cluster}, 5, 6);
  int slow = 0;
  for (int step = 0; step < 1000; ++step) {
    const double a = zero.next();
    ASSERT_EQ(a, six.next()) << "step " << step;
    slow += a > 1.0 ? 1 : 0;
  }
  EXPECT_GT(slow, 150);
  EXPECT_LT(slow, 250);
  // A worker rule beside it: the product differs between workers, the cluster part does not.
  runtime::StepSlowdown mixed_zero({cluster, rule("lognormal", 0.3, 0, 0, 1)}, 5, 0);
  runtime::StepSlowdown mixed_six({cluster, rule("lognormal", 0.3, 0, 0, 1)}, 5, 6);
  EXPECT_NE(mixed_zero.next(), mixed_six.next());
}

// BSP on a ring with worker 1 slow on 30% of its steps by 5x: its compute time is the sum of its drawn
// factors times one step's compute, plus its SGD updates.
TEST(StepSlowdown, ARunChargesEachGradientStepItsFactor) {
  const std::string text = R"(name: random
seed: 9
cluster:
  workers: 4
  device: {peak_flops: "2GFLOPS", efficiency: 0.25}
topology:
  kind: ring
  link: {bandwidth: "1Gbps", latency: "20us"}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: 1000, features: 255}
training:
  batch: {per_worker: 16}
  optimizer: {learning_rate: 0.1}
  stop: {epochs: 2}
stragglers:
  - {workers: [1], distribution: bernoulli, probability: 0.3, factor: 5}
)";
  const auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), text, "random.yaml");
  const checks::Registries registries = checks::make_builtin_registries();
  const auto setup = checks::resolve_scenario(scenario, registries);
  const auto record = runtime::run_training(scenario, setup);
  const auto& device = scenario.cluster.device;
  const double step = compute::compute_time(setup.model().training_flops_per_sample() * 16, device).value();
  const double update = compute::compute_time(models::Sgd::flops(256), device).value();
  runtime::StepSlowdown replica(scenario.cluster.random_slowdowns, 9, 1);
  double factors = 0.0;
  for (std::int64_t k = 0; k < setup.total_iterations; ++k) factors += replica.next();
  const auto iterations = static_cast<double>(setup.total_iterations);
  EXPECT_GT(factors, iterations);  // some steps were slow
  EXPECT_NEAR(record.hosts[1].compute_s, factors * step + iterations * update, 1e-9);
  EXPECT_NEAR(record.hosts[0].compute_s, iterations * (step + update), 1e-9);
  EXPECT_GT(record.hosts[0].wait_s + record.hosts[0].communication_s, (factors - iterations) * step * 0.99);
}

}  // namespace
}  // namespace dtsim
