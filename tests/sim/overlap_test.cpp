// Overlap of the gradient allreduce with the backward pass (PyTorch DDP's buckets), against a two-layer
// case computed by hand: the last layer's bucket is allreduced while the first layer's backward pass runs,
// so a step takes forward + backward of the last layer + max(backward of the first, one allreduce) + the
// last allreduce, not forward + backward + both allreduces.

#include "models/model_profile.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/comm/ring_collectives.hpp"
#include "sim/runtime/context/training_context.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/support/scenario_format.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace dtsim {
namespace {

struct OverlapRun {
  scenario::Scenario scenario;
  runtime::TrainingSetup setup;
  metrics::RunRecord record;
};

/// Two workers on a ring, a profile of two layers of a million parameters each (4 MB of fp32 gradients),
/// buckets of 1 MB so that each layer is a bucket; the first layer's backward pass costs `first_backward`.
OverlapRun simulate_overlap(bool overlap, double first_backward) {
  const std::string text = fmt::format(R"(name: overlap
cluster: {{workers: 2, device: {{peak_flops: "1TFLOPS", efficiency: 1}}}}
topology: {{kind: ring, link: {{bandwidth: "100Gbps", latency: "2us"}}}}
model: {{kind: "profile:resnet50"}}
training:
  overlap: {}
  bucket_size: 1MB
  batch: {{per_worker: 1}}
  optimizer: {{kind: momentum, learning_rate: 0.1}}
  stop: {{iterations: 3}}
)",
                                       overlap ? "true" : "false");
  auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), text, "overlap.yaml");
  const checks::Registries registries = checks::make_builtin_registries();
  auto setup = checks::resolve_scenario(scenario, registries);
  models::ModelProfile two{"two", "", "", {}, {}};
  two.layers.push_back(models::whole_layer("first", 1e6, 1e9, first_backward, 0.0));
  two.layers.push_back(models::whole_layer("last", 1e6, 1e9, 2e9, 0.0));
  setup.workload = two;
  auto record = runtime::run_training(scenario, setup);
  return {std::move(scenario), std::move(setup), std::move(record)};
}

/// One allreduce of a layer's gradients, two ranks on the ring.
double allreduce_s(const OverlapRun& run) {
  const auto& link = run.scenario.topology.link;
  return comm::ring_allreduce_time(2, core::Bytes(4e6), link.latency, link.bandwidth).value();
}

class Overlap : public ::testing::TestWithParam<std::tuple<bool, double>> {};

TEST_P(Overlap, AStepHidesTheFirstAllreduceBehindTheRestOfTheBackwardPass) {
  const auto& [overlap, first_backward] = GetParam();
  const OverlapRun run = simulate_overlap(overlap, first_backward);
  const double rate = 1e12;
  const double forward = 2e9 / rate;
  const double last_backward_s = 2e9 / rate;
  const double first_backward_s = first_backward / rate;
  const double allreduce = allreduce_s(run);
  const double momentum = 4 * 2e6 / rate;
  const double step = overlap ? forward + last_backward_s + std::max(first_backward_s, allreduce) + allreduce + momentum
                              : forward + last_backward_s + first_backward_s + 2 * allreduce + momentum;
  // Without overlap the two layers' gradients are one allreduce of both: the sum of the two.
  const double sequential = forward + last_backward_s + first_backward_s +
                            comm::ring_allreduce_time(2, core::Bytes(8e6), run.scenario.topology.link.latency,
                                                      run.scenario.topology.link.bandwidth)
                                .value() +
                            momentum;
  const double expected = 3 * (overlap ? step : sequential);
  EXPECT_NEAR(run.record.simulated_s, expected, 1e-9 * expected) << "allreduce " << allreduce;
  EXPECT_DOUBLE_EQ(run.record.hosts[0].bytes_sent, 3 * 2 * 4e6);  // each rank sends half of each block twice
}

// A first layer's backward pass shorter than an allreduce (communication-bound) and longer (compute-bound).
INSTANTIATE_TEST_SUITE_P(TwoLayers, Overlap, ::testing::Combine(::testing::Bool(), ::testing::Values(1e8, 2e9)),
                         [](const auto& param_info) {
                           return std::string(std::get<0>(param_info.param) ? "overlap" : "sequential") +
                                  (std::get<1>(param_info.param) < 1e9 ? "_short_backward" : "_long_backward");
                         });

}  // namespace
}  // namespace dtsim
