// Mixed clusters: each worker computes at its own device's rate (roofline of its peak, efficiency and
// memory bandwidth), and node types bring their own devices.

#include "models/sgd.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/support/scenario_format.hpp"

#include <gtest/gtest.h>

namespace dtsim {
namespace {

TEST(MixedDevices, EachWorkerComputesAtItsOwnDevicesRate) {
  const char* const text = R"(
name: mixed
cluster:
  workers: 4
  device: {name: a100}
  worker_devices:
    - {device: v100, workers: [2, 3]}
topology: {kind: ring, link: {bandwidth: 100Gbps, latency: 2us}}
model: {kind: mlp, layers: [256]}
data: {kind: synthetic_classification, samples: 4000, features: 255}
training:
  batch: {per_worker: 64}
  optimizer: {learning_rate: 0.1}
  stop: {iterations: 20}
)";
  const auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), text, "mixed.yaml");
  ASSERT_EQ(scenario.cluster.worker_devices.size(), 4U);
  EXPECT_EQ(scenario.cluster.device_of(1).name, "a100");
  EXPECT_EQ(scenario.cluster.device_of(2).name, "v100");
  EXPECT_FALSE(scenario.cluster.uniform_devices());
  const checks::Registries registries = checks::make_builtin_registries();
  const auto setup = checks::resolve_scenario(scenario, registries);
  const auto record = runtime::run_training(scenario, setup);
  const models::TrainableModel& model = setup.model();
  for (int rank = 0; rank < 4; ++rank) {
    const scenario::DeviceProfile& device = scenario.cluster.device_of(rank);
    const double step = compute::roofline_flops(model.training_flops_per_sample() * 64, model.training_bytes(64), device) /
                        compute::sustained_rate(device).value();
    const double update = compute::compute_time(models::Sgd::flops(model.parameter_count()), device).value();
    EXPECT_NEAR(record.hosts[static_cast<std::size_t>(rank)].compute_s, 20 * (step + update), 1e-12) << rank;
  }
  // Under BSP the A100s wait for the V100s: they spend longer outside computation.
  EXPECT_GT(record.hosts[2].compute_s, record.hosts[0].compute_s);
  EXPECT_GT(record.hosts[0].wait_s + record.hosts[0].communication_s,
            record.hosts[2].wait_s + record.hosts[2].communication_s);
}

TEST(MixedDevices, NodeTypesBringTheirOwnDevicesAndRefinedCatalogEntriesKeepTheirFigures) {
  const char* const text = R"(
name: mixed-nodes
cluster:
  workers: 12
  device: {name: a100, idle_power: 60W}
  devices:
    v100: {idle_power: 40W}
  node_types:
    old: {devices: 4, device: v100, intra: all_to_all, intra_link: {bandwidth: 150GBps, latency: 1us}}
  nodes:
    - {type: dgx_a100, count: 1}
    - {type: old, count: 1}
topology: {kind: hierarchical, fabric: fat_tree, link: {bandwidth: 200Gbps, latency: 2us}}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: 4000, features: 31}
training:
  batch: {per_worker: 16}
  optimizer: {learning_rate: 0.1}
  stop: {iterations: 2}
)";
  const auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), text, "mixed-nodes.yaml");
  for (int rank = 0; rank < 8; ++rank) {
    EXPECT_EQ(scenario.cluster.device_of(rank).name, "a100") << rank;
    EXPECT_DOUBLE_EQ(scenario.cluster.device_of(rank).idle_power->value(), 60.0);
  }
  for (int rank = 8; rank < 12; ++rank) {
    const scenario::DeviceProfile& device = scenario.cluster.device_of(rank);
    EXPECT_EQ(device.name, "v100") << rank;
    EXPECT_DOUBLE_EQ(device.peak_flops.value(), 15.7e12);  // the catalog's, refined
    EXPECT_DOUBLE_EQ(device.idle_power->value(), 40.0);
    EXPECT_DOUBLE_EQ(device.efficiency_of(models::OpClass::Gemm), 0.76);
  }
}

}  // namespace
}  // namespace dtsim
