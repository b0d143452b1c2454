// Energy: SimGrid's host energy plugin gives each device busy power while it computes and idle power
// otherwise, and dtsim its communication power while its messages move, so a host's joules are
// hand-computable from the time it computed and communicated; a straggler's BSP peers spend its extra
// compute time waiting, at idle power.

#include "sim/checks/scenario_resolver.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/runtime/observe/energy_meter.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/support/scenario_format.hpp"

#include <gtest/gtest.h>

namespace dtsim {
namespace {

constexpr double kIdle = 50.0;
constexpr double kBusy = 250.0;
constexpr double kCommunicating = 120.0;

const char* const kStraggler = R"(
name: energy
seed: 3
cluster:
  workers: 4
  device: {name: slow, peak_flops: 2GFLOPS, idle_power: 50W, busy_power: 250W, communication_power: 120W}
topology: {kind: ring, link: {bandwidth: 10Gbps, latency: 5us}}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: 8000, features: 1023}
training:
  batch: {per_worker: 128}
  optimizer: {learning_rate: 0.1}
  stop: {epochs: 1}
stragglers:
  - {workers: [2], slowdown: 4}
energy:
  node_static_power: 100W
  link_idle_power: 1W
  link_busy_power: 4W
)";

metrics::RunRecord run(const char* text) {
  const auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), text, "energy.yaml");
  const checks::Registries registries = checks::make_builtin_registries();
  const auto setup = checks::resolve_scenario(scenario, registries);
  return runtime::run_training(scenario, setup);
}

TEST(Energy, EachDeviceDrawsBusyPowerComputingCommunicationPowerMovingAndIdlePowerOtherwise) {
  const metrics::RunRecord record = run(kStraggler);
  ASSERT_TRUE(record.energy.has_value());
  const double total = record.simulated_s;
  double devices = 0.0;
  for (const metrics::HostActivity& host : record.hosts) {
    ASSERT_GT(host.communication_s, 0.0) << host.name;
    const double expected = kBusy * host.compute_s + kCommunicating * host.communication_s +
                            kIdle * (total - host.compute_s - host.communication_s);
    const double drawn = host.compute_j + host.communication_j + host.waiting_j;
    EXPECT_NEAR(drawn, expected, 1e-6 * expected) << host.name;
    EXPECT_NEAR(host.compute_j, kBusy * host.compute_s, 1e-9 * host.compute_j) << host.name;
    EXPECT_NEAR(host.communication_j, kCommunicating * host.communication_s, 1e-9 * host.communication_j) << host.name;
    EXPECT_GE(host.waiting_j, -1e-12 * expected) << host.name;
    devices += drawn;
  }
  EXPECT_NEAR(record.energy->devices_j, devices, 1e-9 * devices);
  // Static power: one node per worker on a flat topology.
  EXPECT_NEAR(record.energy->static_j, 4 * 100.0 * total, 1e-9 * record.energy->static_j);
  // Links: at least their idle power over the run, at most their busy power.
  const double directions = static_cast<double>(record.links.size());
  EXPECT_GT(record.energy->links_j, 1.0 * directions * total);
  EXPECT_LT(record.energy->links_j, 4.0 * directions * total);
  EXPECT_NEAR(record.energy->total_j(), record.energy->devices_j + record.energy->static_j + record.energy->links_j,
              1e-12 * record.energy->total_j());
  // Evaluations read the joules so far: none at the start, rising, and nearly all at the last iteration
  // (worker 0's; the others may still be finishing their last messages).
  EXPECT_EQ(record.evaluations.front().energy_j, 0.0);
  for (std::size_t i = 1; i < record.evaluations.size(); ++i) {
    EXPECT_GT(record.evaluations[i].energy_j, record.evaluations[i - 1].energy_j);
  }
  EXPECT_LE(record.evaluations.back().energy_j, record.energy->total_j());
  EXPECT_GT(record.evaluations.back().energy_j, 0.99 * record.energy->total_j());
}

TEST(Energy, BspPeersOfAFourTimesStragglerSpendItsExtraComputeTimeWaiting) {
  const metrics::RunRecord record = run(kStraggler);
  const metrics::HostActivity& slow = record.hosts[2];
  for (const int rank : {0, 1, 3}) {
    const metrics::HostActivity& fast = record.hosts[static_cast<std::size_t>(rank)];
    // Every step the fast workers wait for three extra step times (the straggler's 4x): at idle power.
    const double extra = slow.compute_s - fast.compute_s;
    EXPECT_NEAR(fast.waiting_j, kIdle * extra, 0.05 * kIdle * extra) << fast.name;
  }
  // The straggler itself hardly waits: the others are ready for it.
  EXPECT_LT(slow.waiting_j, 0.02 * record.hosts[0].waiting_j);
  // The straggler computes exactly 4 times as long (its host runs at a quarter of the speed)...
  EXPECT_NEAR(slow.compute_s, 4.0 * record.hosts[0].compute_s, 1e-12);
  // ...so, with compute the bulk of the run, three fast workers each idle 3 of their compute times: the share
  // of the devices' energy spent waiting is 3 x 3 x c x P_idle over (4 c P_busy + 3 (c P_busy + 3 c P_idle)).
  const double share = 9.0 * kIdle / (4.0 * kBusy + 3.0 * (kBusy + 3.0 * kIdle));
  EXPECT_NEAR(record.energy->waiting_j / record.energy->devices_j, share, 0.05 * share);
}

// Every built-in device carries idle, communication and busy power: an energy run on H100s needs nothing
// declared, and communication is charged midway between idle (75 W) and busy (700 W) power.
TEST(Energy, BuiltInDevicesCarryEveryPower) {
  const metrics::RunRecord record = run(R"(
name: energy-h100
cluster: {workers: 4, device: {name: h100}}
topology: {kind: ring, link: {bandwidth: 10Gbps, latency: 5us}}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: 4000, features: 255}
training: {batch: {per_worker: 64}, optimizer: {learning_rate: 0.1}, stop: {iterations: 4}}
energy: {}
)");
  ASSERT_TRUE(record.energy.has_value());
  for (const metrics::HostActivity& host : record.hosts) {
    ASSERT_GT(host.communication_s, 0.0) << host.name;
    EXPECT_NEAR(host.communication_j, (75.0 + 700.0) / 2 * host.communication_s, 1e-9 * host.communication_j) << host.name;
    EXPECT_NEAR(host.compute_j, 700.0 * host.compute_s, 1e-9 * host.compute_j) << host.name;
  }
}

// A device's time read back from SimGrid's joules: its busy time once however many of its lanes computed, and
// its messages' time apart from it. Where busy and communication time together exceed the run, the excess ran
// at once and draws busy power: the device never draws more than busy power, and never waits a negative time.
TEST(Energy, MessagesMovingWhileTheDeviceComputesDrawItsBusyPower) {
  // A 10 s run, 6 s executing: the plugin counted 6 x 250 + 4 x 50 J.
  const double plugin = 6.0 * kBusy + 4.0 * kIdle;
  const auto time = [&](double compute_s, double communication_s) {
    return runtime::device_time({.plugin_j = plugin, .now_s = 10.0, .compute_s = compute_s,
                                 .communication_s = communication_s, .idle_w = kIdle, .busy_w = kBusy});
  };
  const runtime::DeviceTime apart = time(6.0, 3.0);
  EXPECT_EQ(apart.busy_s, 6.0);
  EXPECT_EQ(apart.moving_s, 3.0);  // 6 + 3 <= 10: nothing need have overlapped
  const runtime::DeviceTime overlapped = time(6.0, 5.5);
  EXPECT_EQ(overlapped.busy_s, 6.0);
  EXPECT_EQ(overlapped.moving_s, 4.0);  // 1.5 s of the 5.5 ran beside compute
  const double drawn = plugin + overlapped.moving_s * (kCommunicating - kIdle);
  EXPECT_LE(drawn, kBusy * 10.0);
  EXPECT_NEAR(drawn, 6.0 * kBusy + 4.0 * kCommunicating, 1e-9);
  // Two lanes counting 7.5 s of compute where the plugin charged 6: the busy time is the plugin's.
  const runtime::DeviceTime lanes = time(7.5, 3.0);
  EXPECT_NEAR(lanes.busy_s, 6.0, 1e-12);
  EXPECT_NEAR(lanes.moving_s, 3.0, 1e-12);
  // A device throttled to 60% for its 2 s of compute and waiting 8 s: the plugin charged it 2 x (50 + 0.6 x 200)
  // + 8 x 50 J, less than busy power, and what it did not draw while computing is the waiting's share: the time it
  // executed is kept.
  EXPECT_EQ(runtime::device_time({.plugin_j = 2.0 * 170.0 + 8.0 * kIdle, .now_s = 10.0, .compute_s = 2.0,
                                  .communication_s = 0.0, .idle_w = kIdle, .busy_w = kBusy}).busy_s, 2.0);
}

}  // namespace
}  // namespace dtsim
