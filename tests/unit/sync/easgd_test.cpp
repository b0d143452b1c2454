// Elastic averaging SGD run by the simulator: with one worker it is the sequential elastic update computed
// here by hand; with several, each worker exchanges with the center every tau steps and the model learns.

#include "models/sgd.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/sim/recording_observer.hpp"
#include "tests/support/scenario_format.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace dtsim {
namespace {

std::string easgd_text(int workers, const std::string& sync,
                       const std::string& architecture = "{kind: parameter_server, shards: 2}") {
  return fmt::format(R"(name: easgd
seed: 5
cluster:
  workers: {}
  device: {{peak_flops: "2GFLOPS"}}
topology:
  kind: parameter_server
  link: {{bandwidth: "10Gbps", latency: "5us"}}
model: {{kind: logistic_regression}}
data: {{kind: synthetic_classification, samples: 2000, features: 16, label_noise: 0.3}}
training:
  batch: {{per_worker: 16}}
  optimizer: {{learning_rate: 0.4}}
  sync: {}
  architecture: {}
  stop: {{epochs: 2}}
)",
                     workers, sync, architecture);
}

struct ElasticRun {
  scenario::Scenario scenario;
  runtime::TrainingSetup setup;
  metrics::RunRecord record;
  testing::RecordingObserver observed;
};

ElasticRun simulate_elastic(const std::string& text) {
  auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), text, "easgd.yaml");
  const checks::Registries registries = checks::make_builtin_registries();
  auto setup = checks::resolve_scenario(scenario, registries);
  testing::RecordingObserver observed;
  auto record = runtime::run_training(scenario, setup, {}, &observed);
  return {std::move(scenario), std::move(setup), std::move(record), std::move(observed)};
}

std::string first_error(const std::string& text) {
  try {
    static_cast<void>(
        checks::resolve_scenario(scenario::read_scenario_text(dtsim::test::scenario_format(), text, "easgd.yaml"),
                                 checks::make_builtin_registries()));
  } catch (const core::InputError& error) {
    return error.what();
  }
  return "";
}

// One worker, tau = 3, alpha = 0.4 x 0.5: three SGD steps on x, then x and the center c each move alpha of
// their distance toward the other (the last exchange comes at the end of training, however many steps).
TEST(Easgd, OneWorkerIsTheSequentialElasticUpdate) {
  const ElasticRun run = simulate_elastic(easgd_text(1, "{strategy: easgd, rho: 0.5, tau: 3}"));
  const float alpha = 0.4F * 0.5F;
  models::BatchStream stream(run.setup.schedule, 0);
  const models::Sgd sgd(0.4);
  models::Parameters x = run.setup.model().initial_parameters();
  models::Parameters center = x;
  models::Parameters gradient;
  std::int64_t held = 0;
  for (std::int64_t iteration = 1; iteration <= run.setup.total_iterations; ++iteration) {
    run.setup.model().loss_and_gradient(x, run.setup.data.train, stream.next(), gradient);
    sgd.apply(x, gradient);
    if (++held < 3 && iteration < run.setup.total_iterations) continue;
    held = 0;
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      const float old_center = center[i];
      center[i] += alpha * (x[i] - center[i]);
      x[i] -= alpha * (x[i] - old_center);
    }
  }
  ASSERT_EQ(run.observed.final_parameters.size(), static_cast<std::size_t>(x.size()));
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    EXPECT_FLOAT_EQ(run.observed.final_parameters[static_cast<std::size_t>(i)], x[i]) << i;
  }
  // One update per exchange (each shard makes one; the first shard counts them).
  EXPECT_EQ(run.record.updates_applied, (run.setup.total_iterations + 2) / 3);
}

TEST(Easgd, EveryWorkerExchangesEveryTauStepsAndTheModelLearns) {
  const ElasticRun run = simulate_elastic(easgd_text(4, "{strategy: easgd, rho: 0.5, tau: 4}"));
  ASSERT_FALSE(run.observed.pushes.empty());
  for (const auto& push : run.observed.pushes) {
    if (!push.last) {
      EXPECT_EQ(push.delay, 4);
    }
  }
  ASSERT_GE(run.record.evaluations.size(), 2U);
  EXPECT_LT(run.record.evaluations.back().val_loss, 0.8 * run.record.evaluations.front().val_loss);
}

TEST(Easgd, RefusesAMovingRateOfOneOrMoreAndAnAllreduce) {
  const std::string overshoot = first_error(easgd_text(2, "{strategy: easgd, rho: 2.5}"));
  EXPECT_NE(overshoot.find("easgd.yaml:14:"), std::string::npos) << overshoot;
  EXPECT_NE(overshoot.find("training.sync.rho"), std::string::npos) << overshoot;
  EXPECT_NE(overshoot.find("must be below 1"), std::string::npos) << overshoot;
  const std::string allreduce = first_error(easgd_text(2, "{strategy: easgd, rho: 0.5}", "{kind: allreduce}"));
  EXPECT_NE(allreduce.find("needs a parameter server"), std::string::npos) << allreduce;
}

}  // namespace
}  // namespace dtsim
