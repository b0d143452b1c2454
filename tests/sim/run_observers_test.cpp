// What a run measures reaches observers as events; the record is what one of them (RunRecorder) makes of
// them. A second observer, watching the same run span by span, must see time that adds up to the record.

#include "sim/checks/scenario_resolver.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/runtime/observe/run_recorder.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/support/scenario_format.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dtsim {
namespace {

using runtime::Lane;
using runtime::Span;

/// Every span, by lane, as a timeline would draw them.
struct Timeline final : runtime::RunObserver {
  struct Entry {
    Span span;
    char kind = 'c';  ///< c compute, m blocked in communication, w waiting
  };
  std::map<std::pair<int, int>, std::vector<Entry>> lanes;
  std::map<std::pair<int, int>, bool> concurrent;
  std::map<std::pair<int, int>, double> moving_s;
  std::vector<std::pair<int, int>> done;

  void on_compute(Lane lane, Span span) override { add(lane, {span, 'c'}); }
  void on_communication(Lane lane, Span blocked, std::span<const Span> moving) override {
    add(lane, {blocked, 'm'});
    for (const Span& span : moving) {
      EXPECT_GE(span.start, blocked.start);
      EXPECT_LE(span.end, blocked.end);
      moving_s[{lane.host, lane.actor}] += span.end - span.start;
    }
  }
  void on_wait(Lane lane, Span span) override { add(lane, {span, 'w'}); }
  void on_lane_done(Lane lane) override { done.emplace_back(lane.host, lane.actor); }

  void add(Lane lane, Entry entry) {
    lanes[{lane.host, lane.actor}].push_back(entry);
    concurrent[{lane.host, lane.actor}] = lane.concurrent;
  }
  /// The compute time of host `host`: its lanes' spans, a concurrent lane's as their union.
  [[nodiscard]] double compute_s(int host) const {
    double total = 0.0;
    for (const auto& [key, entries] : lanes) {
      if (key.first != host) continue;
      std::vector<Span> spans;
      for (const Entry& entry : entries) {
        if (entry.kind == 'c') spans.push_back(entry.span);
      }
      std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
      double until = -1.0;
      for (const Span& span : spans) {
        const double from = std::max(span.start, until);
        if (span.end > from) total += span.end - from;
        until = std::max(until, span.end);
      }
    }
    return total;
  }
};

struct Observed {
  metrics::RunRecord record;
  Timeline timeline;
};

Observed observe_run(const std::string& training, const std::string& topology = "ring") {
  const std::string text = R"(name: observed
seed: 5
cluster:
  workers: 4
  device: {peak_flops: "1TFLOPS", efficiency: 0.5}
topology: {kind: )" + topology +
                           R"(, link: {bandwidth: "10Gbps", latency: "5us"}}
stragglers:
  - {workers: [2], slowdown: 3}
model: {kind: mlp, layers: [16]}
data: {kind: synthetic_classification, samples: 600, features: 12}
training:
  batch: {per_worker: 8}
  optimizer: {learning_rate: 0.1}
  stop: {iterations: 12}
)" + training;
  const auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), text, "observed.yaml");
  const checks::Registries registries = checks::make_builtin_registries();
  const auto setup = checks::resolve_scenario(scenario, registries);
  Observed observed;
  observed.record = runtime::run_training(scenario, setup, {}, &observed.timeline);
  return observed;
}

void expect_adds_up(const Observed& observed) {
  const metrics::RunRecord& record = observed.record;
  for (std::size_t host = 0; host < record.hosts.size(); ++host) {
    EXPECT_NEAR(observed.timeline.compute_s(static_cast<int>(host)), record.hosts[host].compute_s,
                1e-12 * std::max(1.0, record.simulated_s))
        << record.hosts[host].name;
    double moving = 0.0;
    for (const auto& [key, seconds] : observed.timeline.moving_s) {
      if (key.first == static_cast<int>(host)) moving += seconds;
    }
    EXPECT_NEAR(moving, record.hosts[host].communication_s, 1e-12 * std::max(1.0, record.simulated_s))
        << record.hosts[host].name;
  }
  for (const auto& [key, entries] : observed.timeline.lanes) {
    for (const Timeline::Entry& entry : entries) {
      EXPECT_LE(entry.span.start, entry.span.end);
      EXPECT_GE(entry.span.start, 0.0);
      EXPECT_LE(entry.span.end, record.simulated_s);
    }
    // Helper lanes say when they end, so that their time joins their host's.
    if (key.second != 0) {
      EXPECT_NE(std::find(observed.timeline.done.begin(), observed.timeline.done.end(), key),
                observed.timeline.done.end());
    }
  }
}

/// A lane whose actor blocks in each call never overlaps itself: its spans, in time order, follow each other.
void expect_sequential(const Timeline& timeline, std::pair<int, int> lane) {
  std::vector<Timeline::Entry> entries = timeline.lanes.at(lane);
  ASSERT_FALSE(entries.empty());
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Timeline::Entry& a, const Timeline::Entry& b) { return a.span.start < b.span.start; });
  for (std::size_t i = 1; i < entries.size(); ++i) {
    EXPECT_GE(entries[i].span.start, entries[i - 1].span.end - 1e-15) << "lane " << lane.first << "/" << lane.second;
  }
}

TEST(RunObservers, BulkSynchronousSpansAddUpToTheRecordAndFollowEachOther) {
  const Observed observed = observe_run("");
  expect_adds_up(observed);
  for (int worker = 0; worker < 4; ++worker) expect_sequential(observed.timeline, {worker, 0});
  // Each iteration: the gradient and the update, as SimGrid executed them.
  const auto& lane = observed.timeline.lanes.at({0, 0});
  EXPECT_EQ(std::count_if(lane.begin(), lane.end(), [](const Timeline::Entry& e) { return e.kind == 'c'; }), 2 * 12);
  // The slow worker computes three times as long per gradient; the others wait for it in the allreduce.
  EXPECT_GT(observed.record.hosts[0].wait_s, observed.record.hosts[2].wait_s);
}

TEST(RunObservers, StaleSynchronousAveragingRunsInALaneOfItsOwn) {
  const Observed observed = observe_run("  sync: {strategy: ssp, staleness: 2}\n");
  expect_adds_up(observed);
  for (int worker = 0; worker < 4; ++worker) {
    expect_sequential(observed.timeline, {worker, 0});
    expect_sequential(observed.timeline, {worker, 1});
  }
  // The worker's lane waits for the staleness bound; the averaging lane's waits stay on that lane.
  const auto& main = observed.timeline.lanes.at({0, 0});
  EXPECT_TRUE(std::any_of(main.begin(), main.end(), [](const Timeline::Entry& e) { return e.kind == 'w'; }));
}

TEST(RunObservers, LockFreeServerUpdatesOverlapInTheirOwnLane) {
  const Observed observed = observe_run(
      "  architecture: {kind: parameter_server, shards: 1}\n  sync: {strategy: async}\n", "parameter_server");
  expect_adds_up(observed);
  ASSERT_TRUE(observed.timeline.lanes.contains({4, 1}));
  EXPECT_TRUE(observed.timeline.concurrent.at({4, 1}));
  EXPECT_EQ(observed.timeline.lanes.at({4, 1}).size(), static_cast<std::size_t>(observed.record.updates_applied));
  for (int worker = 0; worker < 4; ++worker) expect_sequential(observed.timeline, {worker, 0});
}

// A server posts its receives, computes an update, and then waits for the next message: the wait counts
// from the update's end, not from the receives' posting (which counted the update twice).
TEST(RunObservers, AServerNeverCountsItsComputeAgainAsWaiting) {
  const Observed observed = observe_run("  architecture: {kind: parameter_server, shards: 1}\n", "parameter_server");
  expect_adds_up(observed);
  expect_sequential(observed.timeline, {4, 0});
  for (const metrics::HostActivity& host : observed.record.hosts) {
    EXPECT_LE(host.compute_s + host.communication_s + host.wait_s, observed.record.simulated_s * (1 + 1e-12))
        << host.name;
  }
}

TEST(RunRecorder, HelperLanesJoinTheirHostWithoutTheirWaitsAndConcurrentOnesAsAUnion) {
  metrics::RunRecord record;
  record.hosts = {{"worker-0", "worker"}, {"server-0", "server"}};
  runtime::RunRecorder recorder(record);
  recorder.on_compute({0, 0}, {0.0, 1.0});
  recorder.on_compute({0, 1}, {0.5, 2.0});
  const std::vector<Span> moving = {{2.0, 3.0}};
  recorder.on_communication({0, 1}, {2.0, 5.0}, moving);
  recorder.on_sent({0, 1}, 100.0, 2);
  EXPECT_DOUBLE_EQ(record.hosts[0].compute_s, 1.0);  // the helper's time joins when it ends
  recorder.on_lane_done({0, 1});
  EXPECT_DOUBLE_EQ(record.hosts[0].compute_s, 2.5);
  EXPECT_DOUBLE_EQ(record.hosts[0].communication_s, 1.0);
  EXPECT_DOUBLE_EQ(record.hosts[0].wait_s, 0.0);
  EXPECT_DOUBLE_EQ(record.hosts[0].bytes_sent, 100.0);
  EXPECT_EQ(record.hosts[0].messages_sent, 2);

  recorder.on_communication({1, 0}, {0.0, 4.0}, moving);
  EXPECT_DOUBLE_EQ(record.hosts[1].communication_s, 1.0);
  EXPECT_DOUBLE_EQ(record.hosts[1].wait_s, 3.0);
  const Lane updates{1, 1, true};
  recorder.on_compute(updates, {1.0, 3.0});
  recorder.on_compute(updates, {0.0, 2.0});
  recorder.on_compute(updates, {5.0, 6.0});
  recorder.on_lane_done(updates);
  EXPECT_DOUBLE_EQ(record.hosts[1].compute_s, 4.0);  // [0, 3] and [5, 6]

  metrics::EvaluationRow row;
  row.iteration = 3;
  recorder.on_evaluation(row);
  ASSERT_EQ(record.evaluations.size(), 1U);
  EXPECT_DOUBLE_EQ(record.evaluations[0].bytes_sent, 100.0);
  recorder.on_gradient_staleness(2);
  recorder.on_gradient_staleness(2);
  recorder.on_update();
  EXPECT_EQ(record.staleness.at(2), 2);
  EXPECT_EQ(record.updates_applied, 1);
  recorder.on_checkpoint(1.0, 0.25);
  EXPECT_EQ(record.checkpoints, 1);
  EXPECT_DOUBLE_EQ(record.checkpoint_s, 0.25);
}

}  // namespace
}  // namespace dtsim
