// Pipeline parallelism against its closed forms (Huang et al. 2019, Narayanan et al. 2021): with equal
// stages and free communication, an iteration of m micro-batches over p stages takes (m + p - 1) passes, so
// the bubble is (p - 1)/m of the compute, for GPipe and 1F1B alike; the stages' activations travel between
// them as sized messages.

#include "models/model_profile.hpp"
#include "models/pipeline_plan.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/support/scenario_format.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

namespace dtsim {
namespace {

struct PipelineRun {
  scenario::Scenario scenario;
  runtime::TrainingSetup setup;
  metrics::RunRecord record;
};

/// `stages` x `replicas` workers on links fast enough to be free, running a profile of 8 equal layers.
PipelineRun simulate_pipeline(int stages, int microbatches, const std::string& schedule, int replicas = 1,
                              const std::string& link = "{bandwidth: \"1000000Tbps\", latency: \"0s\"}",
                              int chunks = 1) {
  const std::string text =
      fmt::format(R"(name: pipeline
cluster: {{workers: {}, device: {{peak_flops: "100TFLOPS"}}}}
topology: {{kind: ring, link: {}}}
model: {{kind: "profile:bert_base"}}
training:
  parallelism: {{pipeline: {}, microbatches: {}, schedule: {}, virtual_stages: {}}}
  batch: {{per_worker: {}}}
  optimizer: {{kind: sgd, learning_rate: 0.1}}
  stop: {{iterations: 2}}
)",
                  stages * replicas, link, stages, microbatches, schedule, chunks, 4 * microbatches);
  auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), text, "pipeline.yaml");
  const checks::Registries registries = checks::make_builtin_registries();
  auto setup = checks::resolve_scenario(scenario, registries);
  // Equal stages: 8 identical layers (or one per stage) of one parameter each, so that the optimizer costs
  // nothing; half of a layer's backward pass is its weights' gradient, so T_F = T_B = T_W under zero bubble.
  models::ModelProfile equal{"equal", "", "", {}, {}};
  for (int i = 0; i < std::max(8, stages * chunks); ++i) {
    equal.layers.push_back(models::whole_layer("layer", 1.0, 1e9, 2e9, 4096.0));
  }
  setup.workload = equal;
  setup.stage_layers = models::split_into_stages(equal, stages * chunks);
  auto record = runtime::run_training(scenario, setup);
  return {std::move(scenario), std::move(setup), std::move(record)};
}

double bubble_fraction(const PipelineRun& run) {
  double busiest = 0.0;
  for (const auto& host : run.record.hosts) busiest = std::max(busiest, host.compute_s);
  return run.record.simulated_s / busiest - 1.0;
}

// One simulation per process (SimGrid's engine): one test per schedule, p and m.
class PipelineBubble : public ::testing::TestWithParam<std::tuple<std::string, int, int>> {};

TEST_P(PipelineBubble, IsStagesLessOneOverMicrobatches) {
  const auto& [schedule, p, m] = GetParam();
  const PipelineRun run = simulate_pipeline(p, m, schedule);
  const double expected = static_cast<double>(p - 1) / m;
  RecordProperty("bubble_fraction", fmt::format("{:.6f}", bubble_fraction(run)));
  EXPECT_NEAR(bubble_fraction(run) / expected, 1.0, 0.01) << bubble_fraction(run);
}

INSTANTIATE_TEST_SUITE_P(Schedules, PipelineBubble,
                         ::testing::Combine(::testing::Values("gpipe", "1f1b"), ::testing::Values(2, 4, 8),
                                            ::testing::Values(4, 8, 32)),
                         [](const auto& param_info) {
                           return std::get<0>(param_info.param) + "_p" + std::to_string(std::get<1>(param_info.param)) +
                                  "_m" + std::to_string(std::get<2>(param_info.param));
                         });

// Interleaving v chunks per device divides the bubble by v (Narayanan et al. 2021): (p-1)/(v m).
class InterleavedBubble : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(InterleavedBubble, IsStagesLessOneOverChunksTimesMicrobatches) {
  const auto& [p, m, v] = GetParam();
  const PipelineRun run =
      simulate_pipeline(p, m, "interleaved_1f1b", 1, "{bandwidth: \"1000000Tbps\", latency: \"0s\"}", v);
  const double expected = static_cast<double>(p - 1) / (v * m);
  RecordProperty("bubble_fraction", fmt::format("{:.6f}", bubble_fraction(run)));
  EXPECT_NEAR(bubble_fraction(run) / expected, 1.0, 0.01) << bubble_fraction(run);
  EXPECT_NEAR(run.record.bubble_closed_form, expected, 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Schedules, InterleavedBubble,
                         ::testing::Values(std::tuple{2, 4, 2}, std::tuple{2, 8, 2}, std::tuple{2, 32, 2},
                                           std::tuple{4, 4, 2}, std::tuple{4, 8, 2}, std::tuple{4, 32, 2},
                                           std::tuple{8, 8, 2}, std::tuple{8, 32, 2}, std::tuple{4, 8, 4}),
                         [](const auto& param_info) {
                           return "p" + std::to_string(std::get<0>(param_info.param)) + "_m" +
                                  std::to_string(std::get<1>(param_info.param)) + "_v" +
                                  std::to_string(std::get<2>(param_info.param));
                         });

// ZB-H1 (Qi et al. 2024): the weight-gradient passes fill the waits, leaving (p-1)(T_F + T_B - T_W) of idle
// time; with T_F = T_B = T_W, (p-1)/(3m) of a stage's compute. The paper's form needs m >= p: with fewer
// micro-batches than stages there are not enough weight passes to fill the warm-up (p = 8, m = 4 idles 57%
// more).
class ZeroBubble : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(ZeroBubble, LeavesStagesLessOneTimesForwardPlusInputLessWeightGradient) {
  const auto& [p, m] = GetParam();
  const PipelineRun run = simulate_pipeline(p, m, "zero_bubble");
  const double expected = static_cast<double>(p - 1) / (3.0 * m);
  RecordProperty("bubble_fraction", fmt::format("{:.6f}", bubble_fraction(run)));
  EXPECT_NEAR(bubble_fraction(run) / expected, 1.0, 0.01) << bubble_fraction(run);
  EXPECT_NEAR(run.record.bubble_closed_form, expected, 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Schedules, ZeroBubble,
                         ::testing::Values(std::tuple{2, 4}, std::tuple{2, 8}, std::tuple{2, 32}, std::tuple{4, 4},
                                           std::tuple{4, 8}, std::tuple{4, 32}, std::tuple{8, 8}, std::tuple{8, 32}),
                         [](const auto& param_info) {
                           return "p" + std::to_string(std::get<0>(param_info.param)) + "_m" +
                                  std::to_string(std::get<1>(param_info.param));
                         });

// DualPipe (its README): (p/2 - 1)(T_F&B + T_B - 3 T_W) of idle time, T_F&B = T_F + T_B with nothing to hide and
// T_B the whole backward pass; with T_F = T_B/2 = T_W, (p - 2)/(3m) of a device's compute, half the micro-batches
// entering at each end.
class DualPipeBubble : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(DualPipeBubble, IsHalfTheStagesLessOneTimesForwardBackwardPlusBackwardLessThreeWeightGradients) {
  const auto& [p, m] = GetParam();
  const PipelineRun run = simulate_pipeline(p, m, "dualpipe");
  const double expected = static_cast<double>(p - 2) / (3.0 * m);
  RecordProperty("bubble_fraction", fmt::format("{:.6f}", bubble_fraction(run)));
  EXPECT_NEAR(bubble_fraction(run), expected, 0.01 * expected + 1e-6) << bubble_fraction(run);
  EXPECT_NEAR(run.record.bubble_closed_form, expected, 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Schedules, DualPipeBubble,
                         ::testing::Values(std::tuple{2, 4}, std::tuple{2, 8}, std::tuple{4, 8}, std::tuple{4, 10},
                                           std::tuple{4, 32}, std::tuple{8, 16}, std::tuple{8, 32}),
                         [](const auto& param_info) {
                           return "p" + std::to_string(std::get<0>(param_info.param)) + "_m" +
                                  std::to_string(std::get<1>(param_info.param));
                         });

TEST(Pipeline, ActivationsTravelForwardAndTheirGradientsBack) {
  // Every stage but the last sends each micro-batch's activations on (4 samples x 4096 bytes), every stage
  // but the first sends their gradients back: 2 (p - 1) m messages an iteration.
  const PipelineRun run = simulate_pipeline(4, 8, "1f1b");
  double sent = 0.0;
  for (const auto& host : run.record.hosts) sent += host.bytes_sent;
  EXPECT_DOUBLE_EQ(sent, 2.0 * 2 * 3 * 8 * 4 * 4096.0);
  EXPECT_DOUBLE_EQ(run.record.hosts[0].bytes_sent, 2.0 * 8 * 4 * 4096.0);
  EXPECT_DOUBLE_EQ(run.record.hosts[3].bytes_sent, 2.0 * 8 * 4 * 4096.0);
}

TEST(Pipeline, DualPipeSendsBothDirectionsActivationsAndSumsTheMirroredCopiesGradients) {
  // Over the 2 iterations, each micro-batch crosses the p - 1 stage boundaries of its direction forward and back,
  // as under 1F1B (the messages of the test above); then each device sends its mirror the gradients of the 4
  // one-parameter layers of its two copies, 4 bytes each.
  const PipelineRun run = simulate_pipeline(4, 8, "dualpipe");
  double sent = 0.0;
  for (const auto& host : run.record.hosts) sent += host.bytes_sent;
  const double mirrored = 2.0 * 4 * 4.0;
  EXPECT_DOUBLE_EQ(sent, 2.0 * 2 * 3 * 8 * 4 * 4096.0 + 4 * mirrored);
  // The first device sends chunk 0's activations on and chunk 1's gradients back, each for half the micro-batches.
  EXPECT_DOUBLE_EQ(run.record.hosts[0].bytes_sent, 2.0 * 8 * 4 * 4096.0 + mirrored);
}

TEST(Pipeline, ReplicasOfAStageAverageItsGradients) {
  // Two replicas of 2 stages: besides its activations, each worker sends half its stage's 4 one-parameter
  // layers (a ring allreduce of 2 ranks sends (p-1)/p of the block twice) each iteration.
  const PipelineRun run = simulate_pipeline(2, 4, "1f1b", 2);
  const double activations = 4 * 4 * 4096.0;  // 4 micro-batches of 4 samples, one way
  EXPECT_DOUBLE_EQ(run.record.hosts[0].bytes_sent, 2 * (activations + 2 * 0.5 * 4 * 4));
  EXPECT_DOUBLE_EQ(run.record.hosts[3].bytes_sent, 2 * (activations + 2 * 0.5 * 4 * 4));
}

}  // namespace
}  // namespace dtsim
