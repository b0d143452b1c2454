// A dense classifier split for real over pipeline stages, tensor groups and replicas, with micro-batches,
// must end where one process doing the same optimizer steps on the global batch ends: the stages pass real
// activations and their gradients, a tensor group sums real partial products, and the replicas average real
// gradients, so only the order of float sums differs.

#include "models/optimizer.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/sim/global_batch.hpp"
#include "tests/sim/recording_observer.hpp"
#include "tests/support/scenario_format.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace dtsim {
namespace {

struct Split {
  int data;
  int tensor;
  int pipeline;
  int microbatches;
  std::string schedule;
};

void PrintTo(const Split& s, std::ostream* out) {
  *out << fmt::format("data {} x tensor {} x pipeline {}, {} micro-batches, {}", s.data, s.tensor, s.pipeline,
                      s.microbatches, s.schedule);
}

std::string split_scenario(const Split& split) {
  return fmt::format(R"(name: split
seed: 11
cluster:
  workers: {}
  device: {{peak_flops: "1TFLOPS", efficiency: 0.5}}
topology:
  kind: ring
  link: {{bandwidth: "10Gbps", latency: "5us"}}
model: {{kind: mlp, layers: [16, 8], activation: tanh}}
data: {{kind: gaussian_blobs, samples: 600, features: 6, classes: 4}}
training:
  parallelism: {{data: {}, tensor: {}, pipeline: {}, microbatches: {}, schedule: {}}}
  batch: {{per_worker: 8}}
  optimizer: {{kind: adam, learning_rate: 0.01}}
  stop: {{iterations: 12}}
)",
                     split.data * split.tensor * split.pipeline, split.data, split.tensor, split.pipeline,
                     split.microbatches, split.schedule);
}

class SplitMlp : public ::testing::TestWithParam<Split> {};

TEST_P(SplitMlp, EndsWithTheParametersOfOneProcessWithTheGlobalBatch) {
  const auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), split_scenario(GetParam()), "split.yaml");
  const checks::Registries registries = checks::make_builtin_registries();
  const runtime::TrainingSetup setup = checks::resolve_scenario(scenario, registries);
  testing::RecordingObserver observed;
  const metrics::RunRecord record = runtime::run_training(scenario, setup, {}, &observed);
  const auto optimizer = setup.make_optimizer(setup.model().parameter_count());
  const models::Parameters reference =
      testing::one_process_on_the_global_batch(setup, scenario.training.parallelism.data, *optimizer);
  ASSERT_EQ(observed.final_parameters.size(), static_cast<std::size_t>(reference.size()));
  const Eigen::Map<const Eigen::VectorXf> simulated(observed.final_parameters.data(), reference.size());
  EXPECT_LE((simulated - reference).cwiseAbs().maxCoeff(), 1e-5 * reference.cwiseAbs().maxCoeff())
      << "largest difference " << (simulated - reference).cwiseAbs().maxCoeff();
  // Training moved the parameters: the comparison is not between two untouched vectors.
  EXPECT_GT((reference - setup.model().initial_parameters()).norm(), 0.1);
  // Messages really travel: stages and tensor groups send.
  EXPECT_GT(record.total_bytes_sent(), 0.0);
  ASSERT_EQ(record.evaluations.size(), 2U);  // before the first step and after the last
}

INSTANTIATE_TEST_SUITE_P(Splits, SplitMlp,
                         ::testing::Values(Split{1, 2, 1, 1, "1f1b"}, Split{1, 1, 3, 4, "1f1b"},
                                           Split{2, 2, 2, 2, "1f1b"}, Split{1, 4, 1, 2, "gpipe"},
                                           Split{2, 1, 2, 4, "gpipe"}, Split{2, 4, 1, 1, "1f1b"}),
                         [](const auto& param_info) {
                           const Split& s = param_info.param;
                           return fmt::format("data{}_tensor{}_pipeline{}_micro{}_{}", s.data, s.tensor, s.pipeline,
                                              s.microbatches, s.schedule);
                         });

}  // namespace
}  // namespace dtsim
