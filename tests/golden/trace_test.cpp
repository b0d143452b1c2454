// trace.json as a user opens it in Perfetto: every event has the Trace Event Format's required fields, each
// host's spans add up to its totals in summary.json, every message's arrow starts at its sender and ends at
// its receiver, the bounds hold, and the same run gives the same bytes.

#include "run_dtsim.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

struct TracedRun {
  nlohmann::json trace;
  nlohmann::json summary;
};

TracedRun traced_text(const std::string& test, const std::string& yaml) {
  const fs::path folder = fresh_output_folder(test);
  std::ofstream(folder / "s.yaml") << yaml;
  const CommandResult run = run_dtsim("run " + (folder / "s.yaml").string() + " -q -o " + (folder / "out").string());
  EXPECT_EQ(run.exit_status, 0) << run.err;
  return {nlohmann::json::parse(read_file(folder / "out" / "trace.json")),
          nlohmann::json::parse(read_file(folder / "out" / "summary.json"))};
}

TracedRun traced_run(const std::string& test, const std::string& scenario, const std::string& outputs) {
  return traced_text(test, "include: " + scenario_path(scenario).string() + "\noutputs: " + outputs + "\n");
}

/// The format's required fields: ph and pid everywhere; name, tid and ts on every event but metadata; dur on
/// complete events; id on flow events; args on counters and metadata.
void expect_well_formed(const nlohmann::json& trace) {
  ASSERT_TRUE(trace.contains("traceEvents"));
  for (const auto& e : trace["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("name")) << e;
    const std::string ph = e["ph"];
    ASSERT_TRUE(std::set<std::string>({"M", "X", "s", "f", "C", "i"}).count(ph)) << e;
    if (ph == "M" || ph == "C") {
      EXPECT_TRUE(e.contains("args")) << e;
    }
    if (ph != "M") {
      EXPECT_TRUE(e.contains("ts") && e["ts"].is_number() && e.contains("tid")) << e;
    }
    if (ph == "X") {
      EXPECT_TRUE(e.contains("dur") && e["dur"].get<double>() >= 0.0) << e;
    }
    if (ph == "s" || ph == "f") {
      EXPECT_TRUE(e.contains("id")) << e;
    }
  }
}

/// Seconds per (host, span name), from the complete events of the hosts' processes: every thread's, but
/// for waiting, the main thread's only (a helper's waits are not the host's, as in summary.json).
std::map<std::pair<int, std::string>, double> span_totals(const nlohmann::json& trace, std::size_t hosts) {
  std::map<std::pair<int, std::string>, double> totals;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X" || e["pid"].get<std::size_t>() >= hosts) continue;
    if (e["name"] == "wait" && e["tid"] != 0) continue;
    totals[{e["pid"].get<int>(), e["name"].get<std::string>()}] += e["dur"].get<double>() / 1e6;
  }
  return totals;
}

void expect_same_seconds(double trace, double summary, const std::string& what) {
  EXPECT_NEAR(trace, summary, 1e-9 * std::max(1.0, std::abs(summary))) << what;
}

/// Each host's compute, communication and waiting spans add up to its totals in summary.json.
void expect_totals_match(const TracedRun& run) {
  const auto& hosts = run.summary["hosts"];
  const auto totals = span_totals(run.trace, hosts.size());
  const auto total = [&totals](int pid, const char* name) {
    return totals.count({pid, name}) > 0 ? totals.at({pid, name}) : 0.0;
  };
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    const int pid = static_cast<int>(h);
    const std::string name = hosts[h]["name"];
    expect_same_seconds(total(pid, "compute"), hosts[h]["compute_s"], name + " compute");
    expect_same_seconds(total(pid, "communication"), hosts[h]["communication_s"], name + " communication");
    expect_same_seconds(total(pid, "wait"), hosts[h]["wait_s"], name + " wait");
  }
}


TEST(Trace, EachHostsSpansAddUpToItsTotalsAndEveryMessageIsAnArrowFromSenderToReceiver) {
  const TracedRun run = traced_run("trace_totals", "compare/straggler.yaml", "{trace: true, trace_iterations: 0}");
  expect_well_formed(run.trace);
  expect_totals_match(run);
  const auto& hosts = run.summary["hosts"];
  const auto totals = span_totals(run.trace, hosts.size());
  EXPECT_GT(totals.at({3, "compute"}), 3.9 * totals.at({0, "compute"})) << "worker 3 is the straggler";
  EXPECT_GT(totals.at({0, "wait"}), 10.0 * totals.at({3, "wait"})) << "the others wait for it";

  // Flows: one start per sender's message, one end at its receiver, paired by id.
  std::map<std::int64_t, nlohmann::json> starts;
  std::map<std::int64_t, nlohmann::json> ends;
  std::map<int, std::int64_t> sent_by;
  for (const auto& e : run.trace["traceEvents"]) {
    if (e["ph"] == "s") {
      EXPECT_TRUE(starts.emplace(e["id"].get<std::int64_t>(), e).second) << "ids are unique";
      ++sent_by[e["pid"].get<int>()];
    }
    if (e["ph"] == "f") {
      EXPECT_TRUE(ends.emplace(e["id"].get<std::int64_t>(), e).second);
    }
  }
  ASSERT_EQ(starts.size(), ends.size());
  for (const auto& [id, start] : starts) {
    ASSERT_TRUE(ends.count(id)) << start;
    EXPECT_LE(start["ts"].get<double>(), ends.at(id)["ts"].get<double>());
    EXPECT_NE(start["pid"], ends.at(id)["pid"]) << "a message crosses hosts";
    EXPECT_GT(ends.at(id)["args"]["bytes"].get<double>(), 0.0);
  }
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    EXPECT_EQ(sent_by[static_cast<int>(h)], hosts[h]["messages_sent"].get<std::int64_t>()) << hosts[h]["name"];
  }
}

TEST(Trace, HelperThreadsAndFailuresAddUpToo) {
  for (const char* scenario : {"compare/allreduce-straggler-ssp.yaml", "faults/failure-checkpoints.yaml",
                               "faults/link-failure-ring.yaml", "compare/straggler-gossip.yaml"}) {
    SCOPED_TRACE(scenario);
    std::string folder = std::string("trace_") + scenario;
    std::replace_if(folder.begin(), folder.end(), [](char c) { return c == '/' || c == '.'; }, '_');
    const TracedRun run = traced_run(folder, scenario, "{trace: true, trace_iterations: 0}");
    expect_well_formed(run.trace);
    expect_totals_match(run);
  }
}

TEST(Trace, AnOverlappedRunShowsTheGradientStreamBesideTheBackwardPass) {
  const TracedRun run = traced_text("trace_overlap", R"(name: overlap
cluster:
  workers: 8
  device: {name: v100, precision: mixed, efficiency: 0.6}
  nodes:
    - {type: dgx1, count: 1}
topology:
  kind: hierarchical
  fabric: fat_tree
  nic: per_device
  link: {bandwidth: "100Gbps", latency: "2us"}
model: {kind: "profile:resnet50"}
training:
  overlap: true
  batch: {per_worker: 64}
  optimizer: {kind: momentum, learning_rate: 0.1}
  stop: {iterations: 3}
outputs: {trace: true}
)");
  expect_well_formed(run.trace);
  const auto& hosts = run.summary["hosts"];
  const auto totals = span_totals(run.trace, hosts.size());
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    const int pid = static_cast<int>(h);
    ASSERT_TRUE(hosts[h].contains("overlapped_communication_s"));
    expect_same_seconds(totals.at({pid, "overlapped communication"}), hosts[h]["overlapped_communication_s"], "overlap");
    expect_same_seconds(totals.at({pid, "compute"}), hosts[h]["compute_s"], "compute");
  }
}

TEST(Trace, ItsBoundsHoldAndSayWhereTheTimelineStops) {
  const TracedRun run = traced_run("trace_bounds", "compare/straggler.yaml",
                                   "{trace: true, trace_iterations: 3, trace_hosts: 3}");
  expect_well_formed(run.trace);
  const double until_us = run.trace["otherData"]["until_s"].get<double>() * 1e6;
  EXPECT_LT(until_us, run.summary["result"]["simulated_s"].get<double>() * 1e6);
  EXPECT_NE(run.trace["otherData"]["cut"].get<std::string>().find("first 3 iterations"), std::string::npos);
  std::set<int> followed;
  for (const auto& e : run.trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name" && e["args"]["name"] != "run") followed.insert(e["pid"].get<int>());
    if (e["ph"] == "X" && e["name"] != "iteration") {
      EXPECT_LE(e["ts"].get<double>() + e["dur"].get<double>(), until_us * (1 + 1e-12)) << e;
    }
  }
  EXPECT_EQ(followed, (std::set<int>{0, 4, 8})) << "three hosts spread over the nine, first and last included";
  EXPECT_EQ(run.trace["otherData"]["hosts_followed"], 3);
}

TEST(Trace, TheSameRunGivesTheSameBytes) {
  std::string first;
  for (int i = 0; i < 2; ++i) {
    const fs::path folder = fresh_output_folder("trace_determinism_" + std::to_string(i));
    std::ofstream(folder / "s.yaml") << "include: " << scenario_path("compare/straggler-ssp.yaml").string()
                                     << "\noutputs: {trace: true}\n";
    ASSERT_EQ(run_dtsim("run " + (folder / "s.yaml").string() + " -q -o " + (folder / "out").string()).exit_status, 0);
    const std::string trace = read_file(folder / "out" / "trace.json");
    if (i == 0) first = trace;
    else { EXPECT_TRUE(trace == first) << "trace.json differs between two runs of the same scenario and seed"; }
  }
}

}  // namespace
}  // namespace dtsim::testing
