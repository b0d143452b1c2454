// Several jobs on one cluster (`jobs:`): two jobs on disjoint subtrees are each their alone run byte for byte; two
// ring allreduces sharing one uplink each take the closed form with half its bandwidth while both run; the same
// scenario and seed give the same files.

#include "run_dtsim.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>
#include <utility>

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

fs::path write_scenario(const fs::path& folder, const std::string& name, const std::string& text) {
  fs::create_directories(folder);
  const fs::path file = folder / (name + ".yaml");
  std::ofstream(file) << text;
  return file;
}

/// Two switches of two workers each, joined by one uplink; every link 10 Gb/s and 5 us, alpha-beta timing.
constexpr const char* kDumbbell = R"(seed: 7
cluster:
  workers: 4
  device: {name: cpu-core, peak_flops: "100GFLOPS", efficiency: 0.5}
topology:
  kind: custom
  link: {bandwidth: 10Gbps, latency: 5us}
  network_model: alpha_beta
  nodes: [{name: w0}, {name: w1}, {name: w2}, {name: w3}, {name: s0, kind: switch}, {name: s1, kind: switch}]
  links:
    - {from: w0, to: s0}
    - {from: w1, to: s0}
    - {from: w2, to: s1}
    - {from: w3, to: s1}
    - {from: s0, to: s1}
model: {kind: mlp, layers: [64], activation: relu}
data: {kind: synthetic_classification, samples: 2000, features: 64}
training:
  batch: {per_worker: 32}
  optimizer: {kind: sgd, learning_rate: 0.1}
  architecture: {kind: allreduce, algorithm: ring}
  stop: {iterations: 10}
)";

nlohmann::json json_of(const fs::path& file) { return nlohmann::json::parse(read_file(file)); }

/// The dumbbell's two jobs, one worker under each switch each, under `network_model`: both jobs' rings cross the
/// uplink each way at the same moments.
void check_two_rings_sharing_the_uplink(const std::string& name, const std::string& network_model) {
  const fs::path folder = fresh_output_folder(name);
  std::string text = std::string("name: dumbbell\n") + kDumbbell;
  text.replace(text.find("network_model: alpha_beta"), 25, "network_model: " + network_model);
  const fs::path file = write_scenario(folder, "dumbbell", text + R"(jobs:
  - {name: a, workers: 2, placement: explicit, hosts: [w0, w2]}
  - {name: b, workers: 2, placement: explicit, hosts: [w1, w3]}
)");
  const CommandResult result = run_dtsim(fmt::format("run {} -o {} --quiet", file.string(), (folder / "out").string()));
  ASSERT_EQ(result.exit_status, 0) << result.err;
  const nlohmann::json cluster = json_of(folder / "out" / "summary.json");
  // Each rank of a 2-rank ring sends half the gradient twice an iteration (reduce-scatter, allgather) over three
  // links of 5 us; both jobs' rings cross s0--s1 each way at the same moments, each at half of 1.25e9 B/s.
  for (const char* job : {"a", "b"}) {
    const nlohmann::json summary = json_of(folder / "out" / "jobs" / job / "summary.json");
    const double half = 4.0 * summary["result"]["parameters"].get<double>() / 2.0;
    const double shared = 20 * (15e-6 + half / (1.25e9 / 2));
    const double alone = 20 * (15e-6 + half / 1.25e9);
    double compute = 0.0;
    for (const nlohmann::json& host : summary["hosts"]) {
      EXPECT_NEAR(host["communication_s"].get<double>(), shared, 1e-12 * shared) << job;
      EXPECT_EQ(host["wait_s"].get<double>(), 0.0) << job;
      compute = host["compute_s"].get<double>();
    }
    const nlohmann::json& row = cluster["jobs"][job == std::string("a") ? 0 : 1];
    EXPECT_NEAR(row["run_s"].get<double>(), compute + shared, 1e-12);
    EXPECT_NEAR(row["alone_s"].get<double>(), compute + alone, 1e-12);
    ASSERT_EQ(row["shared_links"].size(), 2U);
    EXPECT_EQ(row["shared_links"][0]["link"], "s0--s1");
  }
  EXPECT_TRUE(cluster["interference"]["simulated"][0][1].get<bool>());
  EXPECT_EQ(cluster["interference"]["slowdown"][0][1], cluster["jobs"][0]["slowdown"]);
}

TEST(ClusterJobs, TwoRingAllreducesSharingAnUplinkEachTakeTheClosedFormWithHalfItsBandwidth) {
  check_two_rings_sharing_the_uplink("cluster_dumbbell", "alpha_beta");
}

TEST(ClusterJobs, UnderTheAnalyticalNetworkTwoRingAllreducesSharingAnUplinkTakeTheSameClosedForm) {
  // Each phase, timed alone, then shares the uplink with the other job's (runtime/link_sharing.hpp): each moves
  // its bytes at half its pace, and pays its latency once.
  check_two_rings_sharing_the_uplink("cluster_dumbbell_analytical", "analytical");
}

/// Three workers under each of two switches, joined by one uplink, as kDumbbell: a job of two workers (w0, w3) and
/// one of four (w1, w2, w4, w5), whose rings both cross the uplink each way, under `network_model`.
std::string three_by_three(const std::string& network_model) {
  return fmt::format(R"(name: three-by-three
seed: 7
cluster:
  workers: 6
  device: {{name: cpu-core, peak_flops: "100GFLOPS", efficiency: 0.5}}
topology:
  kind: custom
  link: {{bandwidth: 10Gbps, latency: 5us}}
  network_model: {}
  nodes: [{{name: w0}}, {{name: w1}}, {{name: w2}}, {{name: w3}}, {{name: w4}}, {{name: w5}}, {{name: s0, kind: switch}},
          {{name: s1, kind: switch}}]
  links:
    - {{from: w0, to: s0}}
    - {{from: w1, to: s0}}
    - {{from: w2, to: s0}}
    - {{from: w3, to: s1}}
    - {{from: w4, to: s1}}
    - {{from: w5, to: s1}}
    - {{from: s0, to: s1}}
model: {{kind: mlp, layers: [64], activation: relu}}
data: {{kind: synthetic_classification, samples: 2000, features: 64}}
training:
  batch: {{per_worker: 32}}
  optimizer: {{kind: sgd, learning_rate: 0.1}}
  architecture: {{kind: allreduce, algorithm: ring}}
  stop: {{iterations: 10}}
jobs:
  - {{name: a, workers: 2, placement: explicit, hosts: [w0, w3]}}
  - {{name: b, workers: 4, placement: explicit, hosts: [w1, w2, w4, w5]}}
)",
                     network_model);
}

TEST(ClusterJobs, UnderTheAnalyticalNetworkRingsOfOtherRoundsSharingAnUplinkAgreeWithMessageByMessage) {
  // A ring of two (one round a phase) and a ring of four (three rounds of half the bytes): their rounds are mostly
  // latency (15 us against some 7 us of bytes) and not in step, so each meets the other's bytes only part of the
  // time. Counting the other moving bytes all through its phases, the analytical network made the two-worker job
  // 19% slower than message by message (topology/activity_sharing.hpp).
  const fs::path folder = fresh_output_folder("cluster_rings_of_other_rounds");
  std::map<std::string, nlohmann::json> clusters;
  for (const std::string model : {"alpha_beta", "analytical"}) {
    const fs::path file = write_scenario(folder, model, three_by_three(model));
    const CommandResult result =
        run_dtsim(fmt::format("run {} -o {} --quiet", file.string(), (folder / model).string()));
    ASSERT_EQ(result.exit_status, 0) << result.err;
    clusters[model] = json_of(folder / model / "summary.json");
  }
  for (std::size_t job = 0; job < 2; ++job) {
    const nlohmann::json& message = clusters["alpha_beta"]["jobs"][job];
    const nlohmann::json& analytical = clusters["analytical"]["jobs"][job];
    ASSERT_EQ(message["shared_links"].size(), 2U);
    EXPECT_GT(message["slowdown"].get<double>(), 1.01) << job;
    // Alone, the ring of four's rounds over a local and a remote hop are timed in step, as message by message
    // within 1e-4.
    EXPECT_NEAR(analytical["alone_s"].get<double>(), message["alone_s"].get<double>(),
                1e-4 * message["alone_s"].get<double>())
        << job;
    EXPECT_NEAR(analytical["run_s"].get<double>(), message["run_s"].get<double>(),
                0.02 * message["run_s"].get<double>())
        << job;
  }
}

/// A 4-ary fat tree (four pods of four hosts); each job of four workers packed into a pod of its own. The second
/// job, when there is one, is `second`'s training.
std::string fat_tree_jobs(const std::string& second, const std::string& network_model) {
  return fmt::format(R"(name: pods
seed: 3
cluster:
  workers: 16
  device: {{name: cpu-core, peak_flops: "100GFLOPS", efficiency: 0.5}}
topology: {{kind: k_ary_fat_tree, k: 4, link: {{bandwidth: 10Gbps, latency: 5us}}, network_model: {}}}
model: {{kind: logistic_regression}}
data: {{kind: synthetic_classification, samples: 4000, features: 63}}
training:
  batch: {{per_worker: 16}}
  optimizer: {{kind: sgd, learning_rate: 0.5}}
  stop: {{iterations: 30}}
  evaluate_every: 10
jobs:
  - {{name: first, workers: 4}}
{})",
                     network_model, second.empty() ? "" : "  - {name: second, workers: 4, training: " + second + "}\n");
}

/// The first job's files: run beside a second job whose training is `second`, then alone, from the same file.
std::pair<std::map<std::string, std::string>, std::map<std::string, std::string>> beside_and_alone(
    const std::string& name, const std::string& second, const std::string& network_model = "alpha_beta") {
  const fs::path folder = fresh_output_folder(name);
  const fs::path file = write_scenario(folder, "pods", fat_tree_jobs(second, network_model));
  CommandResult result = run_dtsim(fmt::format("run {} -o {} --quiet", file.string(), (folder / "beside").string()));
  EXPECT_EQ(result.exit_status, 0) << result.err;
  const nlohmann::json cluster = json_of(folder / "beside" / "summary.json");
  // Packed: each job in a pod of its own, so their messages never meet.
  EXPECT_EQ(cluster["jobs"][0]["shared_links"].size(), 0U);
  EXPECT_EQ(cluster["jobs"][0]["slowdown"].get<double>(), 1.0);
  EXPECT_EQ(cluster["jobs"][1]["slowdown"].get<double>(), 1.0);
  EXPECT_EQ(cluster["jobs"][0]["hosts"][0], "worker-0");
  EXPECT_EQ(cluster["jobs"][1]["hosts"][0], "worker-4");
  write_scenario(folder, "pods", fat_tree_jobs("", network_model));
  result = run_dtsim(fmt::format("run {} -o {} --quiet", file.string(), (folder / "alone").string()));
  EXPECT_EQ(result.exit_status, 0) << result.err;
  return {files_under(folder / "beside" / "jobs" / "first"), files_under(folder / "alone" / "jobs" / "first")};
}

TEST(ClusterJobs, TwoJobsOnDisjointSubtreesEachGiveTheirAloneRunByteForByte) {
  // The second job trains other values (another learning rate) on the same schedule: its events fall at
  // the first's instants, and the engine's clock takes the same steps as with the first alone.
  const auto [beside, alone] = beside_and_alone("cluster_disjoint", "{optimizer: {kind: sgd, learning_rate: 0.05}}");
  EXPECT_EQ(beside.size(), 3U);
  EXPECT_EQ(beside, alone);
}

TEST(ClusterJobs, UnderTheAnalyticalNetworkTwoJobsOnDisjointSubtreesEachGiveTheirAloneRunByteForByte) {
  // Another pace too: a transfer that meets no other job's keeps its alone end to the last bit.
  const auto [beside, alone] = beside_and_alone("cluster_disjoint_analytical", "{batch: {per_worker: 32}}", "analytical");
  EXPECT_EQ(beside.size(), 3U);
  EXPECT_EQ(beside, alone);
}

TEST(ClusterJobs, AJobBesideOneOfAnotherPaceOnDisjointSubtreesDiffersFromItsAloneRunOnlyByTheClocksRounding) {
  // Twice the batch: the second job's events fall between the first's, and the engine's clock reaches the first's
  // instants by other steps. Its values are the same; its times agree to the clock's rounding.
  const auto [beside, alone] = beside_and_alone("cluster_disjoint_pace", "{batch: {per_worker: 32}}");
  EXPECT_EQ(beside.at("metrics.csv"), alone.at("metrics.csv"));
  EXPECT_EQ(beside.at("links.csv"), alone.at("links.csv"));
  const nlohmann::json one = nlohmann::json::parse(beside.at("summary.json"));
  const nlohmann::json two = nlohmann::json::parse(alone.at("summary.json"));
  EXPECT_NEAR(one["result"]["simulated_s"].get<double>(), two["result"]["simulated_s"].get<double>(),
              1e-12 * two["result"]["simulated_s"].get<double>());
  EXPECT_EQ(one["result"]["final"]["val_loss"], two["result"]["final"]["val_loss"]);
}

/// The dumbbell's four workers training for 12 iterations; `urgent`, when true, a job of two workers and higher
/// priority arriving at 300 us, which stops it: checkpoints move at 1 GB/s.
std::string preempted(bool urgent) {
  std::string out = std::string("name: preempted\n") + kDumbbell;
  out.replace(out.find("stop: {iterations: 10}"), 22, "stop: {iterations: 12}");
  out += "scheduler: {preemption: checkpoint, checkpoint_bandwidth: 1GBps}\njobs:\n  - {name: long, workers: 4}\n";
  if (urgent) out += "  - {name: urgent, workers: 2, arrival: 300us, priority: 1, training: {stop: {iterations: 3}}}\n";
  return out;
}

/// The evaluations' losses and accuracies of a metrics.csv (its columns after the time).
std::vector<std::string> evaluations(const std::string& metrics) {
  std::vector<std::string> out;
  std::istringstream lines(metrics);
  for (std::string line; std::getline(lines, line);) out.push_back(line.substr(line.find(',') + 1));
  return out;
}

TEST(ClusterJobs, APreemptedJobWritesACheckpointLeavesItsDevicesAndResumesWhereItStopped) {
  const fs::path folder = fresh_output_folder("cluster_preemption");
  for (const bool urgent : {true, false}) {
    const fs::path file = write_scenario(folder, urgent ? "beside" : "alone", preempted(urgent));
    const CommandResult result =
        run_dtsim(fmt::format("run {} -o {} --quiet", file.string(), (folder / (urgent ? "beside" : "alone")).string()));
    ASSERT_EQ(result.exit_status, 0) << result.err;
  }
  const nlohmann::json cluster = json_of(folder / "beside" / "summary.json");
  const nlohmann::json& job = cluster["jobs"][0];
  const nlohmann::json& urgent = cluster["jobs"][1];
  ASSERT_EQ(job["stops"].size(), 1U);
  const nlohmann::json& stop = job["stops"][0];
  EXPECT_EQ(stop["requested_s"].get<double>(), 300e-6);
  // The urgent job takes the devices the moment the checkpoint is written, and gives them back at its end.
  EXPECT_EQ(urgent["start_s"], stop["left_s"]);
  EXPECT_EQ(job["stops"][0]["resumed_s"], urgent["end_s"]);
  EXPECT_EQ(job["preempted_s"].get<double>(), stop["resumed_s"].get<double>() - stop["left_s"].get<double>());
  // A checkpoint: every parameter once (plain SGD keeps no state), 4 bytes each, at 1 GB/s; written, then read back.
  const nlohmann::json own = json_of(folder / "beside" / "jobs" / "long" / "summary.json");
  const double checkpoint = 4.0 * own["result"]["parameters"].get<double>() / 1e9;
  EXPECT_DOUBLE_EQ(job["checkpoint_s"].get<double>(), checkpoint);
  EXPECT_NEAR(job["run_s"].get<double>() - job["preempted_s"].get<double>(), job["alone_s"].get<double>() + 2 * checkpoint,
              1e-12);
  EXPECT_NEAR(job["slowdown"].get<double>(), (job["alone_s"].get<double>() + 2 * checkpoint) / job["alone_s"].get<double>(),
              1e-9);
  // Its workers stopped after the same iteration and went on from it: its losses are those of its run uninterrupted.
  EXPECT_EQ(evaluations(read_file(folder / "beside" / "jobs" / "long" / "metrics.csv")),
            evaluations(read_file(folder / "alone" / "jobs" / "long" / "metrics.csv")));
  // Off its devices, it waits in the queue: four devices leave, two join.
  bool seen = false;
  for (const nlohmann::json& change : cluster["utilization"]) {
    if (change["t_s"] != stop["left_s"]) continue;
    seen = true;
    EXPECT_EQ(change["busy_devices"], 2);
    EXPECT_EQ(change["waiting_jobs"], 1);
  }
  EXPECT_TRUE(seen);
  // Links over time: each direction's mean over the bins is its utilization over the makespan (links.csv).
  const nlohmann::json& timeline = cluster["links_over_time"];
  ASSERT_FALSE(timeline["links"].empty());
  const nlohmann::json& busiest = timeline["links"][0];
  double mean = 0.0;
  for (const nlohmann::json& u : busiest["utilization"]) mean += u.get<double>() / static_cast<double>(busiest["utilization"].size());
  std::istringstream rows(read_file(folder / "beside" / "links.csv"));
  bool found = false;
  for (std::string row; std::getline(rows, row);) {
    // link,class,from,to,bandwidth_bytes_per_s,bytes,utilization,jobs
    std::vector<std::string> fields;
    std::istringstream cells(row);
    for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
    if (fields.size() < 8 || fields[0] != busiest["link"] || fields[2] != busiest["from"] || fields[3] != busiest["to"]) continue;
    found = true;
    EXPECT_NEAR(mean, std::stod(fields[6]), 1e-6);
  }
  EXPECT_TRUE(found) << busiest.dump();
}

/// Eight workers on a ring training `model` on digits with `parallelism` for 12 iterations, stopped at 1 ms by a job
/// of higher priority when `urgent` is true: the long job's metrics.csv.
std::string split_job_metrics(const std::string& name, const std::string& model, const std::string& parallelism, bool urgent) {
  const fs::path folder = fresh_output_folder(name + (urgent ? "_beside" : "_alone"));
  std::string text = fmt::format(R"(name: {}
seed: 3
cluster:
  workers: 8
  device: {{name: laptop-core, peak_flops: "10GFLOPS", efficiency: 0.5}}
topology: {{kind: ring, link: {{bandwidth: 10Gbps, latency: 5us}}}}
model: {}
data: {{kind: digits}}
training:
  parallelism: {}
  batch: {{global: 64}}
  optimizer: {{kind: adam, learning_rate: 0.01}}
  stop: {{iterations: 12}}
scheduler: {{preemption: checkpoint, checkpoint_bandwidth: 1GBps}}
jobs:
  - {{name: long, workers: 8}}
)", name, model, parallelism);
  if (urgent) {
    text += "  - {name: urgent, workers: 2, arrival: 1ms, priority: 1, model: {kind: mlp, layers: [16], activation: tanh}, "
            "data: {kind: digits}, training: {parallelism: {data: 2, tensor: 1, expert: 1}, stop: {iterations: 3}}}\n";
  }
  const fs::path file = write_scenario(folder, name, text);
  const CommandResult result = run_dtsim(fmt::format("run {} -o {} --quiet", file.string(), (folder / "out").string()));
  EXPECT_EQ(result.exit_status, 0) << result.err;
  if (urgent) {
    EXPECT_EQ(json_of(folder / "out" / "summary.json")["jobs"][0]["stops"].size(), 1U);
  }
  return read_file(folder / "out" / "jobs" / "long" / "metrics.csv");
}

TEST(ClusterJobs, ModelsSplitOverDevicesResumeWhereTheyStoppedToo) {
  // Tensor parallelism and expert parallelism, trained for real: each device's share stays with its worker.
  for (const auto& [name, model, parallelism] :
       {std::tuple{"tensor", "{kind: mlp, layers: [64, 32], activation: tanh}", "{data: 4, tensor: 2}"},
        std::tuple{"experts", "{kind: moe, experts: 8, top_k: 2, width: 32, expert_width: 32, activation: tanh}",
                   "{data: 8, expert: 4}"}}) {
    EXPECT_EQ(evaluations(split_job_metrics(std::string("cluster_preempted_") + name, model, parallelism, true)),
              evaluations(split_job_metrics(std::string("cluster_preempted_") + name, model, parallelism, false)))
        << name;
  }
}

// SimGrid makes a wait shorter than its timing precision (1e-9 s) last that long: a job arriving 1e-12 s after the
// first starts at 1e-9 s (docs/cluster.md). The scheduler's timer for the next one, set at 1e-9 s for 3e-9 s, is
// dated 1e-9 + (3e-9 - 1e-9), one ulp short of 3e-9: that job still starts at its arrival, not 1e-9 s later.
TEST(ClusterJobs, AJobArrivingWithDevicesFreeStartsAtItsArrivalToTheEnginesTimingPrecision) {
  const fs::path folder = fresh_output_folder("cluster_arrivals");
  const fs::path file = write_scenario(folder, "arrivals", std::string("name: arrivals\n") + kDumbbell + R"(jobs:
  - {name: first, workers: 1}
  - {name: soon, workers: 1, arrival: 1e-12s}
  - {name: later, workers: 1, arrival: 3e-9s}
)");
  const CommandResult result = run_dtsim(fmt::format("run {} -o {} --quiet", file.string(), (folder / "out").string()));
  ASSERT_EQ(result.exit_status, 0) << result.err;
  const nlohmann::json jobs = json_of(folder / "out" / "summary.json")["jobs"];
  EXPECT_EQ(jobs[0]["start_s"].get<double>(), 0.0);
  EXPECT_EQ(jobs[1]["arrival_s"].get<double>(), 1e-12);
  EXPECT_EQ(jobs[1]["start_s"].get<double>(), 1e-9);
  EXPECT_EQ(jobs[2]["arrival_s"].get<double>(), 3e-9);
  EXPECT_EQ(jobs[2]["start_s"].get<double>(), 3e-9);
  EXPECT_EQ(jobs[2]["wait_s"].get<double>(), 0.0);
}

/// Two data-parallel GPT-2 XL jobs of `each` H100s spread over one fat tree of DGX H100s, message by message.
std::string two_jobs_on_a_fat_tree(int each) {
  return fmt::format(R"(name: two-jobs
cluster:
  workers: {}
  device: {{name: h100, precision: mixed}}
  nodes: [{{type: dgx_h100, count: {}}}]
topology: {{kind: hierarchical, fabric: fat_tree, arity: 32, nic: per_device, link: {{bandwidth: 400Gbps, latency: 2us}}}}
model: {{kind: "profile:gpt2_xl"}}
training:
  batch: {{per_worker: 8}}
  optimizer: {{kind: adam, learning_rate: 0.0001}}
  stop: {{iterations: 1}}
scheduler: {{placement: spread}}
jobs:
  - {{name: job-a, workers: {}}}
  - {{name: job-b, workers: {}}}
)",
                     2 * each, 2 * each / 8, each, each);
}

TEST(ClusterJobs, JobsWhoseStepMessageByMessageWouldPassTheHourAreRefusedWithTheEstimate) {
  // Each job's 73 gradient buckets, each a ring allreduce of 2(p - 1) rounds a rank, every message sharing the fabric
  // with both jobs' ranks' flows (6 ns a message and rank, docs/limits.md).
  const fs::path folder = fresh_output_folder("cluster-refused");
  const fs::path file = write_scenario(folder, "two-jobs", two_jobs_on_a_fat_tree(2048));
  const CommandResult result = run_dtsim(fmt::format("run {} -o {}", file.string(), (folder / "out").string()));
  EXPECT_EQ(result.exit_status, 2);
  EXPECT_EQ(result.err, file.string() +
                            ":14:5: error: jobs: message by message, a step of the 2 jobs beside each other (4096 workers "
                            "sharing the fabric) posts at least 1.22 billion messages in its gradient collectives, some "
                            "8.4 hours of wall time a step on 2 cores, past the hour a step may take (and each job is "
                            "simulated again alone)\n  hint: use topology.network_model: analytical, which times each "
                            "phase of a collective at once, or fewer workers\n");
  EXPECT_FALSE(fs::exists(folder / "out"));
}

TEST(ClusterJobs, TheSameScenarioAndSeedGiveTheSameFiles) {
  const fs::path folder = fresh_output_folder("cluster_determinism");
  const fs::path file = write_scenario(folder, "queue", std::string("name: queue\n") + kDumbbell + R"(scheduler: {policy: backfill}
jobs:
  - {name: long, workers: 3, time_limit: 1s, training: {stop: {iterations: 12}}}
  - {name: wide, workers: 4, arrival: 100us, time_limit: 1s}
  - {name: short, workers: 1, arrival: 200us, time_limit: 1ms, placement: random, training: {stop: {iterations: 2}}}
)");
  for (const char* out : {"one", "two"}) {
    const CommandResult result = run_dtsim(fmt::format("run {} -o {} --quiet", file.string(), (folder / out).string()));
    ASSERT_EQ(result.exit_status, 0) << result.err;
  }
  const auto one = files_under(folder / "one");
  EXPECT_EQ(one.size(), 14U);
  EXPECT_EQ(one, files_under(folder / "two"));
  // The short job starts in the gap beside the long one; the wide one waits for the long one to end.
  const nlohmann::json cluster = json_of(folder / "one" / "summary.json");
  EXPECT_EQ(cluster["jobs"][2]["start_s"], cluster["jobs"][2]["arrival_s"]);
  EXPECT_NEAR(cluster["jobs"][2]["start_s"].get<double>(), 200e-6, 1e-15);
  EXPECT_LT(cluster["jobs"][2]["end_s"].get<double>(), cluster["jobs"][0]["end_s"].get<double>());
  EXPECT_EQ(cluster["jobs"][1]["start_s"], cluster["jobs"][0]["end_s"]);
}

}  // namespace
}  // namespace dtsim::testing
