// Timing-only runs of model profiles: an iteration is the profile's compute for the batch (the roofline),
// the allreduce of the whole model (closed form on a ring), and the optimizer; the shortened ring phases
// give the time of the rounds one by one.

#include "models/model_profile.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/comm/ring_collectives.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/runtime/context/training_context.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/scenario/device_catalog.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/support/scenario_format.hpp"

#include <gtest/gtest.h>

namespace dtsim {
namespace {

std::string profile_scenario(int workers, const std::string& device, const std::string& extra = "") {
  return "name: profile\ncluster:\n  workers: " + std::to_string(workers) + "\n  device: " + device + R"(
topology:
  kind: ring
  link: {bandwidth: "100Gbps", latency: "2us"}
model: {kind: "profile:resnet50"}
training:
  overlap: false  # compute, then the allreduce: the closed form below
  batch: {per_worker: 32}
  optimizer: {kind: momentum, learning_rate: 0.1}
  stop: {iterations: 3}
)" + extra;
}

struct ProfileRun {
  scenario::Scenario scenario;
  runtime::TrainingSetup setup;
  metrics::RunRecord record;
};

ProfileRun simulate_profile(const std::string& text, bool shortcut = true) {
  auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), text, "profile.yaml");
  const checks::Registries registries = checks::make_builtin_registries();
  auto setup = checks::resolve_scenario(scenario, registries);
  setup.phase_shortcut = shortcut;
  auto record = runtime::run_training(scenario, setup);
  return {std::move(scenario), std::move(setup), std::move(record)};
}

/// Each layer's roofline, summed: its FLOPs at its class's peak (FP32 for elementwise layers) x efficiency, or
/// its bytes (activations written once and read twice, halved under mixed precision; 16 per parameter) at the
/// memory bandwidth's fraction that the elementwise efficiency gives.
double layer_rooflines(const models::ModelProfile& profile, double batch, const scenario::DeviceProfile& device) {
  const bool mixed = device.precision == scenario::ComputePrecision::mixed;
  double total = 0.0;
  for (const models::LayerProfile& layer : profile.layers) {
    const bool vector = layer.op == models::OpClass::Elementwise;
    const double peak = mixed && !vector ? device.half_flops->value() : device.peak_flops.value();
    const double flops = (layer.forward_flops + layer.backward_flops) * batch;
    const double bytes = 3.0 * (mixed ? 0.5 : 1.0) * layer.activation_bytes * batch + 16.0 * layer.parameters;
    const double bandwidth = device.memory_bandwidth->value() * device.efficiency_of(models::OpClass::Elementwise);
    total += std::max(flops / (peak * device.efficiency_of(layer.op)), bytes / bandwidth);
  }
  return total;
}

/// Compute for the batch (each layer's roofline), the ring allreduce of the padded gradients, and momentum's 4
/// FLOPs per parameter, per iteration.
double closed_form(const ProfileRun& run) {
  const models::ModelProfile& profile = run.setup.profile();
  const auto& device = run.scenario.cluster.device;
  const auto& link = run.scenario.topology.link;
  const int p = run.scenario.cluster.workers;
  // The gradients at their wire precision (16 bits on a mixed-precision device), in 4-byte elements padded
  // to a multiple of the workers.
  const auto padded = static_cast<double>(
      runtime::wire_elements(profile.parameters(), run.scenario.training.wire.gradients, static_cast<std::size_t>(p)));
  const double compute = layer_rooflines(profile, 32, device);
  const double momentum = compute::compute_time(4 * profile.parameters(), device).value();
  const double allreduce = comm::ring_allreduce_time(p, core::Bytes(4 * padded), link.latency, link.bandwidth).value();
  return static_cast<double>(run.record.iterations) * (compute + allreduce + momentum);
}

TEST(TimingOnly, AnIterationIsRooflineComputeRingAllreduceAndTheOptimizer) {
  const ProfileRun run =
      simulate_profile(profile_scenario(8, R"({peak_flops: "100TFLOPS", efficiency: 0.5, memory_bandwidth: "2TB/s"})"));
  const models::ModelProfile& resnet = run.setup.profile();
  ASSERT_TRUE(runtime::is_timing_only(run.setup.mode));
  // At 50 TFLOPS sustained and 1 TB/s (efficiency 0.5 sets every class, the memory's too), the batch as a
  // whole is bound by compute; its elementwise layers (pooling, residual additions) are bound by memory, and
  // take longer than their FLOPs would.
  ASSERT_GT(resnet.training_flops() * 32 / 50e12, resnet.training_bytes(32) / 1e12);
  const double rooflines = layer_rooflines(resnet, 32, run.scenario.cluster.device);
  EXPECT_GT(rooflines, resnet.training_flops() * 32 / 50e12 * 1.01);
  const double expected = closed_form(run);
  EXPECT_NEAR(run.record.simulated_s, expected, 1e-9 * expected);
  const double compute = rooflines + 4 * resnet.parameters() / 50e12;
  EXPECT_NEAR(run.record.hosts[0].compute_s, 3 * compute, 1e-12);
  EXPECT_EQ(run.record.parameter_count, 25'557'032U);
  EXPECT_EQ(run.record.iterations, 3);
  EXPECT_TRUE(run.record.evaluations.empty());
  // Every worker sends 2 (p - 1) chunks of the padded model per iteration.
  const double padded = std::ceil(resnet.parameters() / 8) * 8;
  EXPECT_DOUBLE_EQ(run.record.hosts[3].bytes_sent, 3 * 2 * 7 * 4 * padded / 8);
}

TEST(TimingOnly, SlowMemoryMakesTheBatchTakeBytesOverBandwidth) {
  const ProfileRun run =
      simulate_profile(profile_scenario(2, R"({peak_flops: "100TFLOPS", memory_bandwidth: "100GB/s"})"));
  const models::ModelProfile& resnet = run.setup.profile();
  const scenario::DeviceProfile& device = run.scenario.cluster.device;
  // No efficiency declared: the documented default, for compute and for memory (50 GB/s of 100).
  EXPECT_DOUBLE_EQ(device.efficiency, scenario::kAssumedEfficiency);
  EXPECT_TRUE(device.efficiency_assumed);
  const double bytes = resnet.training_bytes(32);
  const double bandwidth = 100e9 * scenario::kAssumedEfficiency;
  ASSERT_GT(bytes / bandwidth, resnet.training_flops() * 32 / 50e12);
  // Most layers are bound by memory: the sum of the rooflines is a little above the whole batch's bytes over
  // the bandwidth (the few bound by compute take longer than their bytes).
  const double rooflines = layer_rooflines(resnet, 32, device);
  EXPECT_GT(rooflines, bytes / bandwidth);
  EXPECT_LT(rooflines, 1.05 * bytes / bandwidth);
  const double momentum = 4 * resnet.parameters() / 50e12;
  EXPECT_NEAR(run.record.hosts[1].compute_s, 3 * (rooflines + momentum), 1e-9);
}

// The same closed form with the rounds simulated one by one: what the shortened phases must equal.
TEST(TimingOnly, RingRoundsOneByOneTakeTheClosedFormToo) {
  const ProfileRun run = simulate_profile(profile_scenario(16, "{name: v100, precision: mixed}"), false);
  const double expected = closed_form(run);
  EXPECT_NEAR(run.record.simulated_s, expected, 1e-9 * expected);
}

TEST(TimingOnly, LocalSgdAveragesTheModelEveryLocalSteps) {
  const ProfileRun run = simulate_profile(profile_scenario(4, R"({peak_flops: "100TFLOPS"})") +
                                          "  sync: {strategy: local_sgd, local_steps: 3}\n");
  // One model average in the three iterations: 2 (p - 1) chunks of a quarter of the padded model.
  const double padded = std::ceil(run.setup.profile().parameters() / 4) * 4;
  EXPECT_DOUBLE_EQ(run.record.hosts[0].bytes_sent, 2 * 3 * 4 * padded / 4);
}

TEST(TimingOnly, BspWorkersWaitForAStraggler) {
  const ProfileRun run = simulate_profile(
      profile_scenario(4, R"({peak_flops: "100TFLOPS"})", "stragglers: [{workers: [1], slowdown: 2}]\n"));
  // Worker 1 computes twice as long; the others spend the difference in the allreduce, waiting for it or
  // moving their own chunks meanwhile.
  const metrics::HostActivity& fast = run.record.hosts[0];
  const metrics::HostActivity& slow = run.record.hosts[1];
  EXPECT_NEAR(slow.compute_s, 2 * fast.compute_s, 1e-9);
  EXPECT_GE(fast.wait_s + fast.communication_s, slow.compute_s - fast.compute_s);
  EXPECT_GT(fast.wait_s, 0.5 * fast.compute_s);
}

TEST(TimingOnly, ProfilesNeedAnAllreduceBspOrLocalSgdAndIterations) {
  const checks::Registries registries = checks::make_builtin_registries();
  const auto fails = [&](const std::string& text) {
    EXPECT_THROW(checks::check_scenario(
                     scenario::read_scenario_text(dtsim::test::scenario_format(), text, "profile.yaml"), registries),
                 core::InputError)
        << text;
  };
  const std::string base = profile_scenario(4, R"({peak_flops: "100TFLOPS"})");
  fails(base + "  sync: {strategy: gossip}\n");
  std::string no_iterations = base;
  no_iterations.replace(no_iterations.find("iterations: 3"), 13, "sim_time: 1s");
  EXPECT_THROW(static_cast<void>(scenario::read_scenario_text(dtsim::test::scenario_format(), no_iterations, "p.yaml")), core::InputError);
  std::string server = base;
  server.replace(server.find("kind: ring"), 10, "kind: parameter_server");
  fails(server + "  architecture: {kind: parameter_server}\n");
  std::string bert = base;
  bert.replace(bert.find("profile:resnet50"), 16, "profile:bert_base");
  fails(bert.replace(bert.find("{kind: \"profile:bert_base\"}"), 26,
                     "{kind: \"profile:bert_base\", sequence_length: 1000}"));
}

}  // namespace
}  // namespace dtsim
