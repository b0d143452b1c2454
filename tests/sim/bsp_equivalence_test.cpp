// BSP with p workers and per-worker batch b must end where one process doing SGD with batch p*b over the
// same samples in the same order ends: averaging the workers' mean gradients is the mean over p*b samples.

#include "models/optimizer.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/sim/global_batch.hpp"
#include "tests/sim/recording_observer.hpp"
#include "tests/support/scenario_format.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

namespace dtsim {
namespace {

std::string equivalence_scenario(const std::string& topology, const std::string& architecture) {
  return R"(name: equivalence
seed: 17
cluster:
  workers: 4
  device: {peak_flops: "1TFLOPS", efficiency: 0.5}
topology:
  kind: )" +
         topology + R"(
  link: {bandwidth: "10Gbps", latency: "5us"}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: 2000, features: 10, label_noise: 0.3}
training:
  batch: {per_worker: 8}
  optimizer: {learning_rate: 0.4}
  architecture: {kind: )" +
         architecture + R"(}
  stop: {epochs: 2}
)";
}

models::Parameters single_process_sgd(const scenario::Scenario& scenario, const runtime::TrainingSetup& setup) {
  const auto sgd = models::make_optimizer({.kind = "sgd", .learning_rate = scenario.training.optimizer.learning_rate},
                                          setup.model().parameter_count());
  return testing::one_process_on_the_global_batch(setup, scenario.cluster.workers, *sgd);
}

class BspEquivalence : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(BspEquivalence, EndsWithTheParametersOfOneProcessWithTheGlobalBatch) {
  const auto& [topology, architecture] = GetParam();
  const auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), equivalence_scenario(topology, architecture), "equivalence.yaml");
  const checks::Registries registries = checks::make_builtin_registries();
  const runtime::TrainingSetup setup = checks::resolve_scenario(scenario, registries);
  ASSERT_EQ(setup.total_iterations, 2 * 50);  // 1600 training samples / 4 workers / batch 8, two epochs

  testing::RecordingObserver observed;
  runtime::run_training(scenario, setup, {}, &observed);
  const models::Parameters reference = single_process_sgd(scenario, setup);

  ASSERT_EQ(observed.final_parameters.size(), static_cast<std::size_t>(reference.size()));
  const Eigen::Map<const Eigen::VectorXf> simulated(observed.final_parameters.data(), reference.size());
  EXPECT_LE((simulated - reference).norm(), 1e-5 * reference.norm())
      << "simulated " << simulated.transpose() << "\nreference " << reference.transpose();
  // The model did learn something, so the comparison is not between two untouched vectors.
  EXPECT_GT(reference.norm(), 0.5);
}

// The topology only changes when bytes arrive, never what arrives: every kind must end at the same place.
const std::string kCustomStar = R"(custom
  nodes: [{name: a}, {name: b}, {name: c}, {name: d}, {name: hub, kind: switch}, {name: ps, kind: server}]
  links: [{from: a, to: hub}, {from: b, to: hub}, {from: c, to: hub}, {from: d, to: hub}, {from: ps, to: hub}])";

INSTANTIATE_TEST_SUITE_P(
    Architectures, BspEquivalence,
    ::testing::Values(std::pair{std::string("ring"), std::string("allreduce")},
                      std::pair{std::string("ring\n  bidirectional: false"), std::string("allreduce")},
                      std::pair{std::string("parameter_server"), std::string("parameter_server")},
                      std::pair{std::string("parameter_server"), std::string("parameter_server, shards: 3")},
                      std::pair{std::string("tree\n  arity: 3"), std::string("allreduce")},
                      std::pair{std::string("mesh"), std::string("allreduce")},
                      std::pair{std::string("fat_tree\n  oversubscription: 2"), std::string("allreduce")},
                      std::pair{std::string("torus\n  dimensions: [2, 2]"), std::string("allreduce")},
                      std::pair{std::string("random_regular\n  degree: 2"), std::string("allreduce")},
                      std::pair{kCustomStar, std::string("parameter_server")},
                      std::pair{kCustomStar, std::string("allreduce")},
                      std::pair{std::string("mesh"), std::string("allreduce, algorithm: tree")},
                      std::pair{std::string("mesh"), std::string("allreduce, algorithm: halving_doubling")},
                      std::pair{std::string("mesh"), std::string("allreduce, algorithm: direct")},
                      std::pair{std::string("mesh"), std::string("allreduce, algorithm: double_binary_tree")}),
    [](const auto& param_info) {
      const std::string& topology = param_info.param.first;
      // The kind, and a parameter line if there is one (custom topologies' lists are too long).
      std::string name = topology.substr(0, topology.find('\n'));
      if (name != "custom" && topology.find('\n') != std::string::npos) {
        name += topology.substr(topology.find('\n'));
      }
      name += "_" + param_info.param.second;
      std::replace_if(
          name.begin(), name.end(), [](char c) { return !std::isalnum(c); }, '_');
      return name;
    });

// The same with momentum and Adam: every worker (allreduce) or the server (parameter server) runs the
// optimizer on the averaged gradient, which is the global batch's gradient.
class OptimizerEquivalence : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(OptimizerEquivalence, EndsWithTheParametersOfOneProcessWithTheGlobalBatch) {
  const auto& [optimizer, architecture] = GetParam();
  std::string text = equivalence_scenario(architecture == "allreduce" ? "ring" : "parameter_server", architecture);
  const std::string rate = "optimizer: {learning_rate: 0.4}";
  text.replace(text.find(rate), rate.size(),
               "optimizer: {kind: " + optimizer + ", learning_rate: " + (optimizer == "adam" ? "0.05" : "0.2") + "}");
  const auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), text, "equivalence.yaml");
  const checks::Registries registries = checks::make_builtin_registries();
  const runtime::TrainingSetup setup = checks::resolve_scenario(scenario, registries);
  testing::RecordingObserver observed;
  runtime::run_training(scenario, setup, {}, &observed);

  const auto reference_optimizer = models::make_optimizer(
      {.kind = optimizer, .learning_rate = optimizer == "adam" ? 0.05 : 0.2}, setup.model().parameter_count());
  const models::Parameters reference =
      testing::one_process_on_the_global_batch(setup, scenario.cluster.workers, *reference_optimizer);
  const Eigen::Map<const Eigen::VectorXf> simulated(observed.final_parameters.data(), reference.size());
  EXPECT_LE((simulated - reference).norm(), 1e-4 * reference.norm());
  EXPECT_GT(reference.norm(), 0.5);
}

std::string optimizer_case_name(const std::tuple<std::string, std::string>& param) {
  return std::get<0>(param) + "_" + std::get<1>(param);
}

INSTANTIATE_TEST_SUITE_P(Optimizers, OptimizerEquivalence,
                         ::testing::Combine(::testing::Values("momentum", "adam"),
                                            ::testing::Values("allreduce", "parameter_server")),
                         [](const auto& param_info) { return optimizer_case_name(param_info.param); });

}  // namespace
}  // namespace dtsim
