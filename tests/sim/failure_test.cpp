// Failures on a parameter server: a worker that dies for good leaves, and async and SSP go on with the
// others; one that is repaired computes the step it died in again and finishes its share. And the seeded
// failure process: exponential times of the declared mean, the same for the same seed.

#include "sim/checks/scenario_resolver.hpp"
#include "sim/metrics/failure_schedule.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/support/scenario_format.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace dtsim {
namespace {

std::string parameter_server(const std::string& sync, const std::string& failure) {
  return R"(
name: ps-failure
seed: 4
cluster:
  workers: 4
  device: {name: slow, peak_flops: 2GFLOPS}
topology: {kind: parameter_server, link: {bandwidth: 10Gbps, latency: 5us}}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: 4000, features: 63}
training:
  batch: {per_worker: 32}
  optimizer: {learning_rate: 0.1}
  sync: )" + sync + R"(
  architecture: {kind: parameter_server}
  stop: {epochs: 2}
failures:
  events:
    - )" + failure + "\n";
}

struct Outcome {
  metrics::RunRecord record;
  std::int64_t iterations = 0;  ///< each worker's
};

Outcome run(const std::string& text) {
  const auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), text, "failure.yaml");
  const checks::Registries registries = checks::make_builtin_registries();
  const auto setup = checks::resolve_scenario(scenario, registries);
  return {runtime::run_training(scenario, setup), setup.total_iterations};
}

TEST(WorkerFailure, AsyncGoesOnWithoutAWorkerThatLeaves) {
  const auto [record, iterations] = run(parameter_server("{strategy: async}", "{kind: worker, target: \"3\", at: 0.5ms}"));
  ASSERT_EQ(record.failures.size(), 1U);
  EXPECT_TRUE(record.failures[0].left);
  EXPECT_EQ(record.failures[0].lost_steps, 1);
  EXPECT_GE(record.failures[0].noticed_s, 0.0005);
  ASSERT_EQ(record.gradients_by_worker.size(), 4U);
  for (int w = 0; w < 3; ++w) EXPECT_EQ(record.gradients_by_worker[static_cast<std::size_t>(w)], iterations) << w;
  EXPECT_GT(record.gradients_by_worker[3], 0);
  EXPECT_LT(record.gradients_by_worker[3], iterations);
  // Every gradient that arrived was applied: the n - 1 contributors' and the dead worker's before it died.
  EXPECT_EQ(record.updates_applied, 3 * iterations + record.gradients_by_worker[3]);
  EXPECT_LT(record.evaluations.back().val_loss, record.evaluations.front().val_loss);
}

TEST(WorkerFailure, SspCompletesItsClocksWithoutAWorkerThatLeaves) {
  const auto [record, iterations] = run(parameter_server("{strategy: ssp, staleness: 2}", "{kind: worker, target: \"1\", at: 0.5ms}"));
  ASSERT_EQ(record.failures.size(), 1U);
  EXPECT_EQ(record.gradients_by_worker[0], iterations);
  EXPECT_EQ(record.gradients_by_worker[2], iterations);
  EXPECT_LT(record.gradients_by_worker[1], iterations);
  // One update per clock, the dead worker's missing clocks included.
  EXPECT_EQ(record.updates_applied, iterations);
  for (const auto& [staleness, count] : record.staleness) EXPECT_LE(staleness, 2);
}

TEST(WorkerFailure, ARepairedWorkerComputesTheStepItDiedInAgainAndFinishesItsShare) {
  const auto [record, iterations] =
      run(parameter_server("{strategy: async}", "{kind: worker, target: \"2\", at: 0.5ms, repair_after: 3ms}"));
  ASSERT_EQ(record.failures.size(), 1U);
  EXPECT_FALSE(record.failures[0].left);
  EXPECT_DOUBLE_EQ(record.failures[0].downtime_s, 0.003);
  for (const std::int64_t pushed : record.gradients_by_worker) EXPECT_EQ(pushed, iterations);
  // The repaired worker spent its downtime neither computing nor communicating.
  EXPECT_GT(record.simulated_s - record.hosts[2].compute_s - record.hosts[2].communication_s - record.hosts[2].wait_s, 0.0029);
}

TEST(ServerFailure, TheWorkersWaitForAFailedShardWhichGoesOnFromItsCheckpoint) {
  std::string text = parameter_server("{strategy: async}", "{kind: server, target: \"1\", at: 0.4ms, repair_after: 1ms}");
  text += "  checkpoint: {every: 10, storage_bandwidth: 100MBps}\n";
  const std::string two_shards = "architecture: {kind: parameter_server}";
  text.replace(text.find(two_shards), two_shards.size(), "architecture: {kind: parameter_server, shards: 2}");
  const auto [record, iterations] = run(text);
  ASSERT_EQ(record.failures.size(), 1U);
  const metrics::FailureRecord& failure = record.failures[0];
  EXPECT_TRUE(failure.server);
  EXPECT_EQ(failure.worker, 1);
  EXPECT_GE(failure.noticed_s, 0.0004);
  // Half the 64 parameters (plain SGD keeps no state), 4 bytes each, read back at 100 MB/s.
  const double read_s = 32.0 * 4.0 / 100e6;
  EXPECT_NEAR(failure.downtime_s, 0.001 + read_s, 1e-12);
  EXPECT_LE(failure.lost_steps, 10);  // updates since the last checkpoint
  EXPECT_GT(record.checkpoints, 0);
  // Every worker still sends all its gradients, and each waited for the shard through most of its downtime.
  for (const std::int64_t pushed : record.gradients_by_worker) EXPECT_EQ(pushed, iterations);
  for (int w = 0; w < 4; ++w) {
    const metrics::HostActivity& host = record.hosts[static_cast<std::size_t>(w)];
    EXPECT_GT(host.wait_s + host.communication_s, 0.8 * failure.downtime_s) << w;
  }
}

// Elastic BSP on an allreduce: failed workers leave, the others renumber and average among themselves, and
// the lowest rank left records the evaluations (here worker 0 itself fails).
TEST(ElasticAllreduce, TheSurvivorsGoOnAsASmallerGroupToTheLastIteration) {
  const auto [record, iterations] = run(R"(
name: elastic
cluster:
  workers: 4
  device: {name: slow, peak_flops: 2GFLOPS}
topology: {kind: ring, link: {bandwidth: 10Gbps, latency: 5us}}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: 4000, features: 63}
training:
  batch: {per_worker: 32}
  optimizer: {learning_rate: 0.1}
  stop: {epochs: 2}
failures:
  events:
    - {kind: worker, target: "2", at: 0.3ms}
    - {kind: worker, target: "0", at: 0.6ms}
  elastic: true
)");
  ASSERT_EQ(record.failures.size(), 2U);
  EXPECT_EQ(record.failures[0].worker, 2);
  EXPECT_EQ(record.failures[1].worker, 0);
  for (const auto& failure : record.failures) EXPECT_TRUE(failure.left);
  // Worker 1 took over the evaluations and saw training to its end.
  EXPECT_EQ(record.evaluations.back().iteration, iterations);
  EXPECT_LT(record.evaluations.back().val_loss, record.evaluations.front().val_loss);
  // The workers that left computed and sent less than the two that stayed, which did the same.
  EXPECT_LT(record.hosts[2].compute_s, record.hosts[0].compute_s);
  EXPECT_LT(record.hosts[0].compute_s, record.hosts[1].compute_s);
  EXPECT_DOUBLE_EQ(record.hosts[1].compute_s, record.hosts[3].compute_s);
  EXPECT_LT(record.hosts[2].bytes_sent, record.hosts[1].bytes_sent);
}

std::string ring_with_failed_link(bool bidirectional) {
  const std::string link = bidirectional ? "worker-1--worker-2" : "worker-1->-worker-2";
  return R"(
name: link-failure
cluster:
  workers: 4
  device: {name: slow, peak_flops: 2GFLOPS}
topology: {kind: ring, bidirectional: )" + std::string(bidirectional ? "true" : "false") + R"(, link: {bandwidth: 10Gbps, latency: 5us}}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: 4000, features: 63}
training:
  batch: {per_worker: 32}
  optimizer: {learning_rate: 0.1}
  stop: {epochs: 2}
failures:
  events:
    - {kind: link, target: ")" + link + R"(", at: 0.2ms}
)";
}

TEST(LinkFailure, ABidirectionalRingRoutesAroundADeadLinkAndFinishes) {
  const auto [record, iterations] = run(ring_with_failed_link(true));
  EXPECT_FALSE(record.partition.has_value());
  ASSERT_EQ(record.link_events.size(), 1U);
  EXPECT_DOUBLE_EQ(record.link_events[0].at_s, 0.0002);
  EXPECT_EQ(record.evaluations.back().iteration, iterations);
  // Worker 1's messages to worker 2 now go the long way, over links' backward directions a ring allreduce
  // leaves idle.
  double backward = 0.0;
  for (const auto& link : record.links) {
    if (link.from == "worker-1" && link.to == "worker-0") backward += link.bytes;
  }
  EXPECT_GT(backward, 0.0);
  EXPECT_GT(record.simulated_s, 0.0002);
}

TEST(LinkFailure, AUnidirectionalRingIsPartitionedAndTheJobStops) {
#ifdef __SANITIZE_ADDRESS__
  // Stopping the job kills the actors, which SimGrid does by unwinding their stacks; AddressSanitizer does not
  // follow SimGrid's own stack switching and reports the unwinding as a use after scope. The release build
  // runs this test (and the scenario faults/link-failure-one-way.yaml).
  GTEST_SKIP() << "actor kills are misreported under AddressSanitizer";
#endif
  const auto [record, iterations] = run(ring_with_failed_link(false));
  ASSERT_TRUE(record.partition.has_value());
  EXPECT_DOUBLE_EQ(record.partition->at_s, 0.0002);
  EXPECT_EQ(record.partition->link, "worker-1->-worker-2");
  EXPECT_DOUBLE_EQ(record.simulated_s, 0.0002);
  EXPECT_LT(record.evaluations.back().iteration, iterations);
}

/// Workers 0 and 1 under switch s0, 2 and 3 under s1, the switches joined by one link; s0 fails at 0.2 ms.
std::string two_switches_one_failing() {
  return R"(
name: switch-failure
cluster:
  workers: 4
  device: {name: slow, peak_flops: 2GFLOPS}
topology:
  kind: custom
  link: {bandwidth: 10Gbps, latency: 5us}
  nodes:
    - {name: w0}
    - {name: w1}
    - {name: w2}
    - {name: w3}
    - {name: s0, kind: switch}
    - {name: s1, kind: switch}
  links:
    - {from: w0, to: s0}
    - {from: w1, to: s0}
    - {from: w2, to: s1}
    - {from: w3, to: s1}
    - {from: s0, to: s1}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: 4000, features: 63}
training:
  batch: {per_worker: 32}
  optimizer: {learning_rate: 0.1}
  stop: {epochs: 2}
failures:
  events:
    - {kind: switch, target: s0, at: 0.2ms}
)";
}

TEST(SwitchFailure, TakesDownItsLinksAndCutsOffTheHostsItAloneServes) {
#ifdef __SANITIZE_ADDRESS__
  GTEST_SKIP() << "actor kills are misreported under AddressSanitizer (see AUnidirectionalRingIsPartitionedAndTheJobStops)";
#endif
  const auto [record, iterations] = run(two_switches_one_failing());
  std::vector<std::string> down;
  for (const auto& event : record.link_events) {
    EXPECT_TRUE(event.down);
    EXPECT_DOUBLE_EQ(event.at_s, 0.0002);
    down.push_back(event.link);
  }
  std::sort(down.begin(), down.end());
  EXPECT_EQ(down, (std::vector<std::string>{"s0--s1", "w0--s0", "w1--s0"}));
  ASSERT_TRUE(record.partition.has_value());
  EXPECT_DOUBLE_EQ(record.partition->at_s, 0.0002);
  EXPECT_EQ(record.partition->cut_off, (std::vector<std::string>{"w0", "w1"}));
  EXPECT_LT(record.evaluations.back().iteration, iterations);
}

// A node's failure takes its eight GPUs down at once: one rollback meets all eight.
TEST(NodeFailure, TakesDownEveryDeviceOfTheNodeInOneRollback) {
  const auto [record, iterations] = run(R"(
name: node-failure
cluster:
  workers: 16
  device: {name: h100, precision: mixed}
  nodes:
    - {type: dgx_h100, count: 2}
topology: {kind: hierarchical, link: {bandwidth: 400Gbps, latency: 2us}}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: 16000, features: 63}
training:
  batch: {per_worker: 32}
  optimizer: {learning_rate: 0.1}
  stop: {epochs: 2}
failures:
  events:
    - {kind: node, target: "1", at: 0.2ms, repair_after: 1ms}
  checkpoint: {every: 5, storage_bandwidth: 1GB/s}
)");
  ASSERT_EQ(record.failures.size(), 8U);
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(record.failures[i].worker, 8 + static_cast<int>(i));
    EXPECT_DOUBLE_EQ(record.failures[i].at_s, 0.0002);
    EXPECT_EQ(record.failures[i].noticed_s, record.failures[0].noticed_s);
    EXPECT_DOUBLE_EQ(record.failures[i].downtime_s, i == 0 ? 0.001 : 0.0);  // one repair for the node, waited for once
  }
  EXPECT_EQ(record.evaluations.back().iteration, iterations);
}

TEST(FailureSchedule, RandomFailuresComeAtExponentialTimesOfTheDeclaredMeanAndFollowTheSeed) {
  scenario::FailureSpec spec;
  spec.enabled = true;
  spec.mtbf_s = 10.0;
  spec.random_repair_s = 1.0;
  metrics::FailureSchedule schedule(spec, 1, 42);
  metrics::FailureSchedule again(spec, 1, 42);
  metrics::FailureSchedule other(spec, 1, 43);
  double previous_back = 0.0;
  double sum = 0.0;
  constexpr int kFailures = static_cast<int>(metrics::kFailureLimit);
  for (int i = 0; i < kFailures; ++i) {
    const auto failure = schedule.take_due(1e12);
    ASSERT_TRUE(failure.has_value());
    EXPECT_EQ(failure->at_s, again.take_due(1e12)->at_s);
    sum += failure->at_s - previous_back;
    previous_back = failure->at_s + 1.0;  // back after its repair; the next failure comes after that
  }
  EXPECT_NEAR(sum / kFailures, 10.0, 0.04 * 10.0);  // four standard errors of the mean of 10,000 draws
  EXPECT_FALSE(schedule.take_due(1e12).has_value()) << "no schedule hands out more than the limit";
  EXPECT_NE(other.take_due(1e12)->at_s, metrics::FailureSchedule(spec, 1, 42).take_due(1e12)->at_s);
}

TEST(FailureSchedule, FixedEventsComeInTimeOrderOnlyOnceDueAndOnlyForTheirWorker) {
  scenario::FailureSpec spec;
  spec.enabled = true;
  spec.events = {{3, 2.0, std::nullopt, {}}, {1, 1.0, 0.5, {}}};
  metrics::FailureSchedule all(spec, 4, 1);
  EXPECT_FALSE(all.take_due(0.5).has_value());
  EXPECT_EQ(all.take_due(5.0)->worker, 1);
  EXPECT_EQ(all.take_due(5.0)->worker, 3);
  EXPECT_FALSE(all.take_due(5.0).has_value());
  metrics::FailureSchedule three(spec, 4, 1, 3);
  EXPECT_EQ(three.take_due(5.0)->worker, 3);
  EXPECT_FALSE(three.take_due(5.0).has_value());
}

}  // namespace
}  // namespace dtsim
