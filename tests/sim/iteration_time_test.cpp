// With identical workers and an uncontended fabric, every BSP iteration takes the same time, and that time
// is the sum of its parts: compute, communication (closed form), and, for a parameter server, the
// server's update. The whole run is the iteration count times that.

#include "models/sgd.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/comm/parameter_server_protocol.hpp"
#include "sim/comm/ring_collectives.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/support/scenario_format.hpp"

#include <gtest/gtest.h>

namespace dtsim {
namespace {

constexpr const char* kDevice = R"({peak_flops: "2GFLOPS", efficiency: 0.25})";

std::string timing_scenario(const std::string& topology, const std::string& architecture, const std::string& extra,
                            const std::string& device) {
  return R"(name: timing
cluster:
  workers: 4
  device: )" +
         device + R"(
topology:
  kind: )" +
         topology + R"(
  link: {bandwidth: "1Gbps", latency: "20us"}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: 1000, features: 255}
training:
  batch: {per_worker: 16}
  optimizer: {learning_rate: 0.1}
  architecture: {kind: )" +
         architecture + R"(}
  stop: {epochs: 1}
)" + extra;
}

struct TimedRun {
  scenario::Scenario scenario;
  runtime::TrainingSetup setup;
  metrics::RunRecord record;
};

TimedRun simulate_timing(const std::string& topology, const std::string& architecture, const std::string& extra = "",
                         const std::string& device = kDevice) {
  auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), timing_scenario(topology, architecture, extra, device), "timing.yaml");
  const checks::Registries registries = checks::make_builtin_registries();
  auto setup = checks::resolve_scenario(scenario, registries);
  auto record = runtime::run_training(scenario, setup);
  return {std::move(scenario), std::move(setup), std::move(record)};
}

TEST(TrainingTime, ParameterServerIterationIsComputePushUpdatePull) {
  const TimedRun run = simulate_timing("parameter_server", "parameter_server");
  const auto& device = run.scenario.cluster.device;
  const auto& link = run.scenario.topology.link;
  const double parameters = static_cast<double>(run.setup.model().parameter_count());  // 256
  const int workers = run.scenario.cluster.workers;
  const double worker_compute =
      compute::compute_time(run.setup.model().training_flops_per_sample() * 16, device).value();
  const double server_compute = compute::compute_time(parameters * workers + models::Sgd::flops(256), device).value();
  const double transfer =
      comm::push_time(workers, core::Bytes(4 * parameters), link.latency, link.bandwidth, link.latency, link.bandwidth)
          .value();
  const double iteration = worker_compute + transfer + server_compute + transfer;
  const double expected = iteration * static_cast<double>(run.setup.total_iterations);
  EXPECT_NEAR(run.record.simulated_s, expected, 1e-6 * expected);
  // Each worker waited for the server's update every iteration and computed only its own gradients.
  const auto& worker = run.record.hosts[0];
  EXPECT_NEAR(worker.compute_s, worker_compute * static_cast<double>(run.setup.total_iterations), 1e-9);
  EXPECT_NEAR(worker.wait_s, server_compute * static_cast<double>(run.setup.total_iterations), 1e-9);
  EXPECT_DOUBLE_EQ(worker.bytes_sent, 4 * parameters * static_cast<double>(run.setup.total_iterations));
}

// One worker 8 times slower under BSP on a parameter server: each worker's communication is what its own
// transfers take (the three fast pushes share the server's link, the slow one has it alone; the four
// replies share it), and the rest of its iteration, the barrier, is waiting. Waiting is not booked as
// communication however long the straggler takes.
TEST(TrainingTime, ParameterServerBarrierIsWaitingNotCommunication) {
  const TimedRun run = simulate_timing("parameter_server", "parameter_server", "stragglers: [{workers: [2], slowdown: 8}]\n");
  const auto& device = run.scenario.cluster.device;
  const auto& link = run.scenario.topology.link;
  const double parameters = static_cast<double>(run.setup.model().parameter_count());
  const int workers = run.scenario.cluster.workers;
  const double compute = compute::compute_time(run.setup.model().training_flops_per_sample() * 16, device).value();
  const double server_compute = compute::compute_time(parameters * workers + models::Sgd::flops(256), device).value();
  const auto transfer = [&](int sharing) {
    return comm::push_time(sharing, core::Bytes(4 * parameters), link.latency, link.bandwidth, link.latency,
                           link.bandwidth)
        .value();
  };
  ASSERT_GT(7 * compute, transfer(3));  // the fast pushes are done before the slow one starts
  const auto iterations = static_cast<double>(run.setup.total_iterations);
  const double iteration = 8 * compute + transfer(1) + server_compute + transfer(4);
  EXPECT_NEAR(run.record.simulated_s, iteration * iterations, 1e-6 * iteration * iterations);
  const auto& slow = run.record.hosts[2];
  EXPECT_NEAR(slow.communication_s, (transfer(1) + transfer(4)) * iterations, 1e-9);
  EXPECT_NEAR(slow.wait_s, server_compute * iterations, 1e-9);
  for (const int w : {0, 1, 3}) {
    const auto& fast = run.record.hosts[static_cast<std::size_t>(w)];
    EXPECT_NEAR(fast.communication_s, (transfer(3) + transfer(4)) * iterations, 1e-9) << w;
    EXPECT_NEAR(fast.wait_s, (7 * compute + transfer(1) - transfer(3) + server_compute) * iterations, 1e-9) << w;
  }
}

// Two shards: each server averages and updates half of the 256 parameters, and each push or pull moves
// two flows of half the gradient per worker.
TEST(TrainingTime, ShardedParameterServerSplitsTransferAndUpdate) {
  const TimedRun run = simulate_timing("parameter_server", "parameter_server, shards: 2");
  ASSERT_EQ(run.record.hosts.size(), 6U);  // 4 workers, 2 servers
  const auto& device = run.scenario.cluster.device;
  const auto& link = run.scenario.topology.link;
  const double parameters = static_cast<double>(run.setup.model().parameter_count());
  const int workers = run.scenario.cluster.workers;
  const double shard = parameters / 2;
  const double worker_compute =
      compute::compute_time(run.setup.model().training_flops_per_sample() * 16, device).value();
  const double server_compute =
      compute::compute_time(shard * workers + models::Sgd::flops(static_cast<std::size_t>(shard)), device).value();
  const double transfer = comm::push_time(workers, core::Bytes(4 * parameters), link.latency, link.bandwidth,
                                          link.latency, link.bandwidth, 2)
                              .value();
  const double expected =
      (worker_compute + transfer + server_compute + transfer) * static_cast<double>(run.setup.total_iterations);
  EXPECT_NEAR(run.record.simulated_s, expected, 1e-6 * expected);
  EXPECT_DOUBLE_EQ(run.record.hosts[4].bytes_sent, run.record.hosts[5].bytes_sent);
}

TEST(TrainingTime, AllreduceIterationIsComputeAllreduceUpdate) {
  const TimedRun run = simulate_timing("ring", "allreduce");
  const auto& device = run.scenario.cluster.device;
  const auto& link = run.scenario.topology.link;
  const double parameters = static_cast<double>(run.setup.model().parameter_count());  // 256 = 4 chunks of 64
  const double compute =
      compute::compute_time(run.setup.model().training_flops_per_sample() * 16 + models::Sgd::flops(256), device)
          .value();
  const double allreduce =
      comm::ring_allreduce_time(4, core::Bytes(4 * parameters), link.latency, link.bandwidth).value();
  const double expected = (compute + allreduce) * static_cast<double>(run.setup.total_iterations);
  EXPECT_NEAR(run.record.simulated_s, expected, 1e-6 * expected);
  for (const auto& host : run.record.hosts) EXPECT_NEAR(host.wait_s, 0.0, 1e-12) << host.name;
}

// A device with little memory bandwidth: the batch takes its bytes over that bandwidth (the roofline), the
// SGD step its FLOPs at the sustained rate.
TEST(TrainingTime, AMemoryBoundBatchTakesItsBytesOverTheBandwidth) {
  const TimedRun run = simulate_timing("ring", "allreduce", "",
                                       R"({peak_flops: "2GFLOPS", efficiency: 0.25, memory_bandwidth: "10MB/s"})");
  const models::TrainableModel& model = run.setup.model();
  const double bytes = model.training_bytes(16);  // 16 samples of 255 features and a label, 12 x 256 of weights
  EXPECT_DOUBLE_EQ(bytes, 4.0 * 256 * 16 + 12.0 * 256);
  ASSERT_GT(bytes / 10e6, model.training_flops_per_sample() * 16 / 0.5e9);
  const double per_iteration = bytes / 10e6 + models::Sgd::flops(256) / 0.5e9;
  EXPECT_NEAR(run.record.hosts[1].compute_s, per_iteration * static_cast<double>(run.setup.total_iterations), 1e-9);
}

// One worker 4 times slower: under BSP every iteration waits for it, so an iteration is its compute (and
// update) plus the allreduce, and the others spend the difference waiting.
TEST(TrainingTime, BspWaitsForAFixedStraggler) {
  const TimedRun run = simulate_timing("ring", "allreduce", "stragglers: [{workers: [2], slowdown: 4}]\n");
  ASSERT_EQ(run.scenario.cluster.slowdown, (std::vector<double>{1, 1, 4, 1}));
  const auto& device = run.scenario.cluster.device;
  const auto& link = run.scenario.topology.link;
  const double parameters = static_cast<double>(run.setup.model().parameter_count());
  const double compute =
      compute::compute_time(run.setup.model().training_flops_per_sample() * 16 + models::Sgd::flops(256), device)
          .value();
  const double allreduce =
      comm::ring_allreduce_time(4, core::Bytes(4 * parameters), link.latency, link.bandwidth).value();
  const auto iterations = static_cast<double>(run.setup.total_iterations);
  const double expected = (4 * compute + allreduce) * iterations;
  EXPECT_NEAR(run.record.simulated_s, expected, 1e-6 * expected);
  EXPECT_NEAR(run.record.hosts[2].compute_s, 4 * compute * iterations, 1e-9);
  EXPECT_NEAR(run.record.hosts[2].wait_s, 0.0, 1e-9);
  // A fast worker spends the rest of each iteration in the allreduce: waiting for the straggler, or moving
  // its own chunks meanwhile (those count as communication). It may leave the last one a little earlier.
  const auto& fast = run.record.hosts[0];
  EXPECT_NEAR(fast.wait_s + fast.communication_s, (3 * compute + allreduce) * iterations, allreduce);
  EXPECT_GT(fast.wait_s, 0.99 * 3 * compute * iterations);
}

}  // namespace
}  // namespace dtsim
