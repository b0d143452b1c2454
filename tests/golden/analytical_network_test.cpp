// `network_model: analytical` against the same collectives and training steps simulated message by message
// (alpha_beta, every ring round on its own): ring and hierarchical allreduce, ring reduce-scatter and
// allgather on ring, mesh, fat-tree, three-tier fat-tree, torus and hierarchical fabrics up to 256 ranks;
// model-parallel steps (a pipeline's messages, tensor groups, a stage's replicas); and the runs it refuses
// rather than time otherwise. And `network_model: closed_form`, the same network blind to contention: equal
// to message by message where no flows share a link, never slower than the analytical network.

#include "run_dtsim.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace dtsim::testing {
namespace {

/// The largest relative difference allowed; measured on these cases: 3e-7 (rounds of a ring phase that
/// start together in both models take the same time).
constexpr double kBound = 1e-5;

std::vector<double> collective_times(const std::string& arguments) {
  const CommandResult result = run_dtsim("collective " + arguments + " --sizes 1MiB:64MiB:64 --json");
  EXPECT_EQ(result.exit_status, 0) << arguments << "\n" << result.err;
  std::vector<double> out;
  if (result.exit_status != 0) return out;
  const nlohmann::json document = nlohmann::json::parse(result.out);
  for (const auto& row : document["rows"]) out.push_back(row["time_s"].get<double>());
  return out;
}

void expect_same(const std::string& arguments, const std::string& analytical, const std::string& exact,
                 double bound = kBound) {
  SCOPED_TRACE(arguments);
  const std::vector<double> fast = collective_times(arguments + " " + analytical);
  const std::vector<double> slow = collective_times(arguments + " " + exact + " --round-by-round");
  ASSERT_EQ(fast.size(), slow.size());
  ASSERT_FALSE(fast.empty());
  for (std::size_t i = 0; i < fast.size(); ++i) EXPECT_LE(std::abs(fast[i] - slow[i]) / slow[i], bound) << fast[i] << " " << slow[i];
}

TEST(AnalyticalNetwork, RingPhasesEqualMessageByMessageOnFlatTopologies) {
  const std::vector<std::string> cases{
      "--op allreduce --ranks 64 --topology ring",
      "--op allreduce --ranks 64 --topology mesh",
      "--op allreduce --ranks 64 --topology fat_tree --arity 8 --oversubscription 2",
      "--op reduce_scatter --ranks 256 --topology fat_tree --arity 8 --oversubscription 4",
      "--op allgather --ranks 128 --topology k_ary_fat_tree --k 8",
      "--op allreduce --ranks 128 --topology k_ary_fat_tree --k 8",
      "--op allreduce --ranks 256 --topology torus --dimensions 16x16",
  };
  for (const std::string& c : cases) expect_same(c + " --algo ring", "--network-model analytical", "--network-model alpha_beta");
}

TEST(AnalyticalNetwork, CollectiveStepsEqualMessageByMessage) {
  // Binomial trees, recursive halving and doubling, and direct: each rank's steps timed at once, every
  // message posted when its sender's and its receiver's previous steps are done, as message by message.
  const std::vector<std::string> cases{
      "--op allreduce --algo tree --ranks 256 --topology fat_tree --arity 8 --oversubscription 2",
      "--op allreduce --algo tree --ranks 100 --topology k_ary_fat_tree --k 8",
      "--op allreduce --algo halving_doubling --ranks 256 --topology fat_tree --arity 8",
      "--op allreduce --algo halving_doubling --ranks 24 --topology fat_tree --arity 8 --oversubscription 2",
      "--op allreduce --algo halving_doubling --ranks 64 --topology k_ary_fat_tree --k 8",
      "--op allreduce --algo direct --ranks 64 --topology mesh",
      "--op reduce_scatter --algo direct --ranks 64 --topology fat_tree --arity 8 --oversubscription 2",
      "--op allgather --algo direct --ranks 16 --topology k_ary_fat_tree --k 8",
      "--op broadcast --algo tree --ranks 256 --topology mesh",
      "--op broadcast --algo direct --ranks 64 --topology ring",
      "--op reduce --algo tree --ranks 64 --topology ring",
      "--op reduce --algo direct --ranks 64 --topology fat_tree --arity 8 --oversubscription 2",
  };
  for (const std::string& c : cases) expect_same(c, "--network-model analytical", "--network-model alpha_beta");
}

TEST(AnalyticalNetwork, CollectiveStepsStayWithinTheirMeasuredBounds) {
  // Where the fluid model and SimGrid part (docs/how-it-works.md#the-analytical-network): recursive halving
  // and doubling on a torus, measured -0.08% to +0.05%; a direct allreduce on an oversubscribed fat tree,
  // whose second half starts rank by rank, +3.2% at 64 ranks (timed from the links' loads, as below).
  expect_same("--op allreduce --algo halving_doubling --ranks 200 --topology torus --dimensions 20x10",
              "--network-model analytical", "--network-model alpha_beta", 0.002);
  expect_same("--op allreduce --algo direct --ranks 64 --topology fat_tree --arity 8 --oversubscription 2",
              "--network-model analytical", "--network-model alpha_beta", 0.035);
  // Past kFluidEveryToEveryRanks, every-to-every steps timed from the links' loads: a direct allgather of 32
  // ranks on a 3-level fat tree, measured +0.93% (small messages) and +0.015%.
  expect_same("--op allgather --algo direct --ranks 32 --topology k_ary_fat_tree --k 8",
              "--network-model analytical", "--network-model alpha_beta", 0.0095);
}

std::filesystem::path hierarchical_scenario(const std::filesystem::path& folder, const std::string& fabric,
                                            const std::string& model) {
  const auto path = folder / fmt::format("{}-{}.yaml", std::hash<std::string>{}(fabric), model);
  std::ofstream(path) << fmt::format(R"(name: fabric
cluster:
  workers: 64
  device: {{name: h100}}
  nodes: [{{type: dgx_h100, count: 8}}]
topology: {{kind: hierarchical, fabric: {}, network_model: {}, link: {{bandwidth: 400Gbps, latency: 2us}}}}
model: {{kind: "profile:gpt2_xl"}}
training:
  batch: {{per_worker: 4}}
  optimizer: {{kind: adam, learning_rate: 0.0001}}
  stop: {{iterations: 1}}
)",
                                     fabric, model);
  return path;
}

TEST(AnalyticalNetwork, RingPhasesEqualMessageByMessageOnHierarchicalFabrics) {
  const auto folder = fresh_output_folder("analytical-fabrics");
  for (const std::string fabric : {"fat_tree, arity: 4, oversubscription: 2, nic: per_node", "rail, arity: 4, nic: per_device",
                                   "k_ary_fat_tree, k: 8, oversubscription: 2, nic: per_device"}) {
    const auto analytical = hierarchical_scenario(folder, fabric, "analytical");
    const auto exact = hierarchical_scenario(folder, fabric, "alpha_beta");
    for (const std::string algorithm : {"hierarchical", "ring", "halving_doubling", "tree"}) {
      expect_same("--op allreduce --algo " + algorithm, "--scenario " + analytical.string(), "--scenario " + exact.string());
    }
  }
}

TEST(AnalyticalNetwork, ATrainingStepTakesTheSameSimulatedTime) {
  // GPT-2 XL on 8 DGX H100 over a three-tier fat tree, gradients in 25 MiB buckets overlapping the backward
  // pass: about 60 collectives a step. Recursive halving and doubling ends rank by rank, so that message by
  // message the next bucket's first steps overlap the last steps of the one before, which the analytical
  // network times apart: measured -2.1%.
  const auto folder = fresh_output_folder("analytical-step");
  for (const auto& [algorithm, bound] : std::vector<std::pair<std::string, double>>{
           {"ring", kBound}, {"hierarchical", kBound}, {"tree", kBound}, {"halving_doubling", 0.025}}) {
    SCOPED_TRACE(algorithm);
    std::vector<double> simulated;
    for (const std::string model : {"analytical", "alpha_beta"}) {
      const auto path = folder / (algorithm + "-" + model + ".yaml");
      std::ofstream(path) << fmt::format(R"(name: step
cluster:
  workers: 64
  device: {{name: h100, precision: mixed, efficiency: 0.5}}
  nodes: [{{type: dgx_h100, count: 8}}]
topology: {{kind: hierarchical, fabric: k_ary_fat_tree, k: 8, nic: per_device, network_model: {}, link: {{bandwidth: 400Gbps, latency: 2us}}}}
model: {{kind: "profile:gpt2_xl"}}
training:
  batch: {{per_worker: 4}}
  optimizer: {{kind: adam, learning_rate: 0.0001}}
  architecture: {{kind: allreduce, algorithm: {}}}
  stop: {{iterations: 2}}
)",
                                         model, algorithm);
      const auto out = folder / (algorithm + "-" + model);
      const CommandResult run = run_dtsim("run " + path.string() + " -q -o " + out.string());
      ASSERT_EQ(run.exit_status, 0) << run.err;
      simulated.push_back(nlohmann::json::parse(read_file(out / "summary.json"))["result"]["simulated_s"].get<double>());
    }
    EXPECT_LE(std::abs(simulated[0] - simulated[1]) / simulated[1], bound) << simulated[0] << " " << simulated[1];
  }
}

/// A timing-only step of `workers` H100s on DGX H100 nodes over `fabric`, split by `parallelism`.
std::filesystem::path model_parallel_scenario(const std::filesystem::path& folder, const std::string& name,
                                              int workers, const std::string& model, const std::string& fabric,
                                              const std::string& parallelism, const std::string& network_model) {
  const auto path = folder / (name + "-" + network_model + ".yaml");
  std::ofstream(path) << fmt::format(R"(name: {}
cluster:
  workers: {}
  device: {{name: h100, precision: mixed, efficiency: 0.5}}
  nodes: [{{type: dgx_h100, count: {}}}]
topology: {{kind: hierarchical, {}, nic: per_device, network_model: {}, link: {{bandwidth: 400Gbps, latency: 2us}}}}
model: {{kind: "profile:{}"}}
training:
  batch: {{per_worker: 16}}
  optimizer: {{kind: adam, learning_rate: 0.0001}}
  parallelism: {}
  stop: {{iterations: 2}}
)",
                                     name, workers, workers / 8, fabric, network_model, model, parallelism);
  return path;
}

/// Runs a model-parallel case under both network models; returns (analytical, alpha_beta) simulated seconds.
std::pair<double, double> model_parallel_times(const std::filesystem::path& folder, const std::string& name, int workers,
                                               const std::string& model, const std::string& fabric,
                                               const std::string& parallelism) {
  std::vector<double> simulated;
  for (const std::string network_model : {"analytical", "alpha_beta"}) {
    const auto path = model_parallel_scenario(folder, name, workers, model, fabric, parallelism, network_model);
    const auto out = folder / (name + "-" + network_model);
    const CommandResult run = run_dtsim("run " + path.string() + " -q -o " + out.string());
    EXPECT_EQ(run.exit_status, 0) << run.err;
    if (run.exit_status != 0) return {0.0, 1.0};
    simulated.push_back(nlohmann::json::parse(read_file(out / "summary.json"))["result"]["simulated_s"].get<double>());
  }
  return {simulated[0], simulated[1]};
}

TEST(AnalyticalNetwork, PipelineMessagesWhoseFlowsShareNoLinkTakeWhatTheyTakeMessageByMessage) {
  // A pipeline inside one node, and a pipeline over 8 nodes of a rail-optimised fabric (each stage on its own
  // rail, its 8 replicas' allreduce on that rail, overlapped with the backward passes under zero bubble): no
  // two groups' flows share a link, so timing each message as it is posted equals SimGrid's message by
  // message, every output file but the summary's echo of the scenario the same.
  const auto folder = fresh_output_folder("analytical-pipeline");
  const std::vector<std::tuple<std::string, int, std::string>> cases{
      {"one-node", 8, "{pipeline: 8, microbatches: 16}"},
      {"rails", 64, "{pipeline: 8, microbatches: 16, schedule: zero_bubble}"},
  };
  for (const auto& [name, workers, parallelism] : cases) {
    SCOPED_TRACE(name);
    const auto [fast, exact] = model_parallel_times(folder, name, workers, "gpt2_xl", "fabric: rail", parallelism);
    EXPECT_NEAR(fast, exact, 1e-9 * exact);
    for (const std::string file : {"metrics.csv", "links.csv"}) {
      EXPECT_EQ(read_file(folder / (name + "-analytical") / file), read_file(folder / (name + "-alpha_beta") / file)) << file;
    }
  }
}

TEST(AnalyticalNetwork, ModelParallelStepsStayWithinTheirMeasuredBounds) {
  // Llama 2 7B on 8 DGX H100 over a three-tier fat tree. A stage's replicas of every tensor share reduce their
  // gradients in one meeting, and every replica's n-th message between two stages moves with the others': so
  // their flows share the links as message by message (measured +0.22% tensor 8 x pipeline 2, -0.11% tensor
  // 4 x pipeline 4 with sequence parallelism). What stays apart is what runs at different moments: the
  // stages' allreduces overlap in time, stage by stage, and message by message share the fabric's uplinks;
  // with 8 stages each of 8 replicas that costs -25.3% (documented in how-it-works.md).
  const auto folder = fresh_output_folder("analytical-model-parallel");
  const std::string fat_tree = "fabric: k_ary_fat_tree, k: 8";
  const std::vector<std::tuple<std::string, std::string, std::string, double>> cases{
      {"tensor-8", "llama2_7b", "{tensor: 8, pipeline: 2, microbatches: 8}", 0.005},
      {"sequence-parallel", "llama2_7b", "{tensor: 4, pipeline: 4, microbatches: 8, sequence_parallel: true}", 0.005},
      {"stages-overlap", "gpt2_xl", "{pipeline: 8, microbatches: 16, schedule: zero_bubble}", 0.27},
  };
  for (const auto& [name, model, parallelism, bound] : cases) {
    SCOPED_TRACE(name);
    const auto [fast, exact] = model_parallel_times(folder, name, 64, model, fat_tree, parallelism);
    EXPECT_LE(std::abs(fast - exact) / exact, bound) << fast << " " << exact;
  }
}

/// A timing-only job of 64 H100s on 8 DGX H100 under the analytical network, over `fabric`, with energy and
/// a timeline; `training` is its training section but the optimizer; `model_keys` are appended to the model's.
std::filesystem::path standing_in_scenario(const std::filesystem::path& folder, const std::string& name,
                                           const std::string& model, const std::string& fabric,
                                           const std::string& training, const std::string& model_keys = "") {
  const auto path = folder / (name + ".yaml");
  std::ofstream(path) << fmt::format(R"(name: {}
cluster:
  workers: 64
  device: {{name: h100, precision: mixed, efficiency: 0.5, idle_power: 60W, busy_power: 700W}}
  nodes: [{{type: dgx_h100, count: 8}}]
topology: {{kind: hierarchical, {}, nic: per_device, network_model: analytical, link: {{bandwidth: 400Gbps, latency: 2us}}}}
model: {{kind: "profile:{}"{}}}
energy: {{node_static_power: 500W, link_idle_power: 2W}}
outputs: {{trace: true}}
training:
  optimizer: {{kind: adam, learning_rate: 0.0001}}
{})",
                                     name, fabric, model, model_keys, training);
  return path;
}

/// A data-parallel GPT-2 XL job of 64 H100s whose ranks behave alike, with `training` appended to its
/// training section.
std::filesystem::path alike_scenario(const std::filesystem::path& folder, const std::string& name,
                                     const std::string& algorithm, const std::string& training) {
  return standing_in_scenario(folder, name, "gpt2_xl", "fabric: k_ary_fat_tree, k: 8",
                              fmt::format("  batch: {{per_worker: 4}}\n  architecture: {{kind: allreduce, algorithm: {}}}\n"
                                          "  stop: {{iterations: 3}}\n{}",
                                          algorithm, training));
}

/// Runs `path` as it is, into `stand_in`, and with --every-rank, into `every`; both must succeed, stdout
/// saying `said` of the first run and nothing starting `said_of_none` of the second. Returns whether both ran.
bool run_both_ways(const std::filesystem::path& path, const std::filesystem::path& stand_in,
                   const std::filesystem::path& every, const std::string& said, const std::string& said_of_none) {
  const CommandResult one = run_dtsim("run " + path.string() + " -o " + stand_in.string());
  EXPECT_EQ(one.exit_status, 0) << one.err;
  if (one.exit_status != 0) return false;
  EXPECT_NE(one.out.find(said), std::string::npos) << one.out;
  const CommandResult all = run_dtsim("run " + path.string() + " --every-rank -o " + every.string());
  EXPECT_EQ(all.exit_status, 0) << all.err;
  if (all.exit_status != 0) return false;
  EXPECT_EQ(all.out.find(said_of_none), std::string::npos) << all.out;
  return true;
}

TEST(AnalyticalNetwork, WorkerZeroStandsForEveryWorkerWithTheSameResults) {
  // Ring and hierarchical allreduce; overlapped buckets, ZeRO stages, local SGD: worker 0 alone gives
  // every output file of a run of all 64, byte for byte.
  const auto folder = fresh_output_folder("analytical-mirrored");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"ring", ""},
      {"hierarchical", ""},
      {"hierarchical", "  overlap: false\n"},
      {"ring", "  parallelism: {zero: 1}\n"},
      {"ring", "  parallelism: {zero: 3}\n"},
      {"ring", "  overlap: false\n  sync: {strategy: local_sgd, local_steps: 2}\n"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].first + " " + cases[i].second);
    const auto path = alike_scenario(folder, fmt::format("alike-{}", i), cases[i].first, cases[i].second);
    const auto mirrored = folder / fmt::format("mirrored-{}", i);
    const auto every = folder / fmt::format("every-{}", i);
    ASSERT_TRUE(run_both_ways(path, mirrored, every, "simulated  worker 0 for all 64 workers", "simulated  worker 0"));
    for (const std::string file : {"summary.json", "metrics.csv", "links.csv", "trace.json"}) {
      EXPECT_EQ(read_file(mirrored / file), read_file(every / file)) << file;
    }
  }
}

TEST(AnalyticalNetwork, ReplicaZeroStandsForEveryReplica) {
  // Tensor x pipeline x data: replica 0's ranks are simulated, each for its counterparts in every replica.
  // On a rail-optimised fabric every replica's copy of a message takes the same time, and every output file
  // equals a run of every rank, byte for byte. On a fat tree whose routes hash pairs over the uplinks, copies
  // of one message take different times: the stand-in takes the slowest, where each rank of a run of all
  // waits for the slowest instead; the step, metrics.csv and links.csv are the same, each host's split of its
  // waits into communication and waiting may not be.
  const auto folder = fresh_output_folder("analytical-replicas");
  struct Case {
    std::string name, model, fabric, parallelism, training;
    int replica_ranks;  ///< tensor x pipeline
    bool every_file;
  };
  const std::vector<Case> cases{
      {"zero-bubble", "gpt2_xl", "fabric: rail", "{pipeline: 8, microbatches: 8, schedule: zero_bubble}", "", 8, true},
      {"tensor", "llama2_7b", "fabric: rail", "{tensor: 8, pipeline: 2, microbatches: 8}", "", 16, true},
      {"hierarchical", "llama2_7b", "fabric: rail", "{tensor: 4, pipeline: 2, microbatches: 8}",
       "  architecture: {kind: allreduce, algorithm: hierarchical}\n", 8, true},
      {"zero", "llama2_7b", "fabric: rail", "{tensor: 2, pipeline: 4, microbatches: 8, zero: 1}", "  overlap: false\n", 8, true},
      {"fat-tree", "llama2_7b", "fabric: k_ary_fat_tree, k: 8",
       "{tensor: 4, pipeline: 4, microbatches: 8, sequence_parallel: true}", "", 16, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto path = standing_in_scenario(
        folder, c.name, c.model, c.fabric,
        fmt::format("  batch: {{per_worker: 8}}\n  parallelism: {}\n  stop: {{iterations: 2}}\n{}", c.parallelism, c.training));
    const auto mirrored = folder / (c.name + "-replica-0");
    const auto every = folder / (c.name + "-every");
    ASSERT_TRUE(run_both_ways(path, mirrored, every,
                              fmt::format("simulated  replica 0's {} ranks for all 64 workers", c.replica_ranks),
                              "simulated  replica 0"));
    for (const std::string file : {"metrics.csv", "links.csv"}) {
      EXPECT_EQ(read_file(mirrored / file), read_file(every / file)) << file;
    }
    const auto simulated = [](const std::filesystem::path& out) {
      return nlohmann::json::parse(read_file(out / "summary.json"))["result"]["simulated_s"].get<double>();
    };
    EXPECT_EQ(simulated(mirrored), simulated(every));
    if (!c.every_file) continue;
    for (const std::string file : {"summary.json", "trace.json"}) {
      EXPECT_EQ(read_file(mirrored / file), read_file(every / file)) << file;
    }
  }
}

/// A timing-only mixture of experts (32 experts, 4 routed a token, even routing) on standing_in_scenario's cluster
/// on a rail fabric, split by `parallelism`, with `training` appended.
std::filesystem::path mixture_scenario(const std::filesystem::path& folder, const std::string& name,
                                       const std::string& parallelism, const std::string& training) {
  return standing_in_scenario(
      folder, name, "llama", "fabric: rail",
      fmt::format("  communication_library: nccl\n  batch: {{global: 256}}\n  stop: {{iterations: 2}}\n"
                  "  parallelism: {}\n{}",
                  parallelism, training),
      ", blocks: 4, hidden_size: 1024, heads: 8, ffn_hidden_size: 2048, experts: 32, top_k: 4, sequence_length: 2048");
}

TEST(AnalyticalNetwork, ReplicaZeroStandsForEveryReplicaOfAMixtureOfExperts) {
  // Expert parallelism carved out of the replicas, routing even: replica 0's ranks stand for every replica, their
  // expert groups for every expert group of their stage, the devices holding their experts for every such group.
  // Each exchange is timed once from every rank's steps, all entering together (from 0, then placed at its start:
  // the same step to within rounding where every rank of a run of all enters together too); every link carries the
  // same bytes as in a run of every rank. Where a run of every rank times its ranks' ends of an exchange apart (each
  // rank's own routes, and the compute beside an overlapped exchange slowed for as long as its own lasts), its
  // replicas drift apart a little and its step differs from the stand-ins' (by 0.11%, 0.02%, 0.73% and 0.02% below).
  const auto folder = fresh_output_folder("analytical-mixture-replicas");
  struct Case {
    std::string name, parallelism, training;
    int replica_ranks;
    double bound;  ///< the step's relative difference allowed
  };
  const std::vector<Case> cases{
      {"all-to-all", "{pipeline: 2, expert: 8, microbatches: 4, zero: 1}", "", 2, 1e-12},
      {"all-gather", "{pipeline: 4, expert: 16, microbatches: 4}", "  token_dispatcher: all_gather\n", 4, 1e-12},
      {"all-to-all-32", "{pipeline: 2, expert: 32, microbatches: 4}", "", 2, 0.002},
      {"deepep-dualpipe", "{pipeline: 2, expert: 32, microbatches: 4, schedule: dualpipe}",
       "  token_dispatcher: deepep\n  routing: {groups: 8, group_limit: 4}\n  overlap_expert_exchange: true\n", 2,
       0.002},
      // On the experts' own grid an expert group holds devices of both tensor ranks, whose stand-ins time its
      // exchanges together. Here each group spans two machines, 4 devices on each, whose ranks end a direct
      // all-to-all far apart (a run of every rank: 18% sooner on average than the group's last rank).
      {"grid",
       "{tensor: 2, sequence_parallel: true, pipeline: 2, expert: 8, expert_tensor: 1, microbatches: 4, zero: 1}", "",
       4, 0.01},
      {"grid-deepep",
       "{tensor: 2, sequence_parallel: true, pipeline: 2, virtual_stages: 2, schedule: interleaved_1f1b, expert: 16, "
       "expert_tensor: 1, microbatches: 4}",
       "  token_dispatcher: deepep\n  routing: {groups: 8, group_limit: 4}\n  overlap_expert_exchange: true\n", 4,
       0.002},
  };
  const auto simulated = [](const std::filesystem::path& out) {
    return nlohmann::json::parse(read_file(out / "summary.json"))["result"]["simulated_s"].get<double>();
  };
  // Each link's bytes: links.csv's sixth column.
  const auto bytes = [](const std::filesystem::path& out) {
    std::vector<std::string> column;
    std::istringstream lines(read_file(out / "links.csv"));
    for (std::string line; std::getline(lines, line);) {
      std::vector<std::string> cells;
      std::istringstream row(line);
      for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
      column.push_back(cells.size() > 5 ? cells[5] : line);
    }
    return column;
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto path = mixture_scenario(folder, c.name, c.parallelism, c.training);
    const auto mirrored = folder / (c.name + "-replica-0");
    const auto every = folder / (c.name + "-every");
    ASSERT_TRUE(run_both_ways(path, mirrored, every,
                              fmt::format("simulated  replica 0's {} ranks for all 64 workers", c.replica_ranks),
                              "simulated  replica 0"));
    EXPECT_EQ(bytes(mirrored), bytes(every));
    EXPECT_NEAR(simulated(mirrored) / simulated(every), 1.0, c.bound);
  }
}

TEST(AnalyticalNetwork, ReplicaZeroStandsForEveryContextGroup) {
  // Context parallelism: a context group's devices are replicas of one another, replica 0's ranks stand for every
  // context group of their stage. Keys and values allgathered: every output file equals a run of every rank. By
  // ring: the same step, metrics and links; the trace lacks the arrows a run of every rank draws for each ring
  // message (the stand-in times each ring transfer as one phase of the group, not as messages).
  const auto folder = fresh_output_folder("analytical-context-replicas");
  for (const std::string attention : {"all_gather", "ring"}) {
    SCOPED_TRACE(attention);
    const auto path = standing_in_scenario(
        folder, attention, "llama", "fabric: rail",
        fmt::format("  communication_library: nccl\n  batch: {{global: 16}}\n  stop: {{iterations: 2}}\n"
                    "  parallelism: {{tensor: 2, sequence_parallel: true, context: 4, context_attention: {}, "
                    "pipeline: 2, microbatches: 4, zero: 1}}\n",
                    attention),
        ", blocks: 4, hidden_size: 1024, heads: 8, ffn_hidden_size: 2048, sequence_length: 16384");
    const auto mirrored = folder / (attention + "-replica-0");
    const auto every = folder / (attention + "-every");
    ASSERT_TRUE(run_both_ways(path, mirrored, every, "simulated  replica 0's 4 ranks for all 64 workers",
                              "simulated  replica 0"));
    for (const std::string file : {"summary.json", "metrics.csv", "links.csv"}) {
      EXPECT_EQ(read_file(mirrored / file), read_file(every / file)) << file;
    }
    if (attention == "all_gather") {
      EXPECT_EQ(read_file(mirrored / "trace.json"), read_file(every / "trace.json"));
    }
  }
}

TEST(AnalyticalNetwork, WorkersThatDifferAreEachSimulated) {
  const auto folder = fresh_output_folder("analytical-unlike");
  const auto path = alike_scenario(folder, "straggler", "ring", "stragglers: [{workers: [3], slowdown: 1.5}]\n");
  const CommandResult run = run_dtsim("run " + path.string() + " -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_EQ(run.out.find("simulated  worker 0"), std::string::npos) << run.out;
  // On the experts' own grid an expert-tensor group cuts across tensor ranks, and so does a group of devices holding
  // the same experts where expert x expert_tensor is no multiple of tensor (expert 2 over tensor 4: its devices sit 2
  // apart, at tensor ranks 0 and 2).
  for (const std::string parallelism :
       {"{tensor: 2, sequence_parallel: true, pipeline: 2, expert: 4, expert_tensor: 2, microbatches: 4}",
        "{tensor: 4, sequence_parallel: true, pipeline: 2, expert: 2, expert_tensor: 1, microbatches: 4}"}) {
    SCOPED_TRACE(parallelism);
    const auto mixture = mixture_scenario(folder, "grid", parallelism, "");
    const CommandResult grid = run_dtsim("run " + mixture.string() + " -o " + (folder / "grid").string());
    ASSERT_EQ(grid.exit_status, 0) << grid.err;
    EXPECT_EQ(grid.out.find("simulated  replica 0"), std::string::npos) << grid.out;
  }
}

TEST(AnalyticalNetwork, RefusesWhatItWouldNotTime) {
  const CommandResult tree = run_dtsim("collective --algo double_binary_tree --network-model analytical --ranks 8");
  EXPECT_EQ(tree.exit_status, 2);
  EXPECT_NE(tree.err.find("--algo: the analytical network times ring phases and steps of the whole group, and "
                          "'double_binary_tree' sends its messages one by one"),
            std::string::npos)
      << tree.err;
}

// `network_model: closed_form`: the same network with every flow timed as if alone on its route.

TEST(ClosedFormNetwork, EqualsMessageByMessageWhereNoFlowsShareALink) {
  for (const std::string arguments : {"--op allreduce --algo ring --ranks 64 --topology ring",
                                      "--op allgather --algo direct --ranks 16 --topology mesh",
                                      "--op allreduce --algo halving_doubling --ranks 32 --topology mesh"}) {
    SCOPED_TRACE(arguments);
    const std::vector<double> closed = collective_times(arguments + " --network-model closed_form");
    const std::vector<double> exact = collective_times(arguments + " --network-model alpha_beta --round-by-round");
    ASSERT_EQ(closed.size(), exact.size());
    ASSERT_FALSE(closed.empty());
    for (std::size_t i = 0; i < closed.size(); ++i) EXPECT_NEAR(closed[i], exact[i], 1e-5 * exact[i]);
  }
}

TEST(ClosedFormNetwork, IsNeverSlowerThanTheAnalyticalNetworkAndFasterUnderContention) {
  // Eight ranks a leaf, two spine links a leaf: recursive halving's far steps send every rank of a leaf
  // across them at once (measured: 4.8 times as long shared as alone).
  const std::string arguments =
      "--op allreduce --algo halving_doubling --ranks 64 --topology fat_tree --arity 8 --oversubscription 4";
  const std::vector<double> closed = collective_times(arguments + " --network-model closed_form");
  const std::vector<double> shared = collective_times(arguments + " --network-model analytical");
  ASSERT_EQ(closed.size(), shared.size());
  ASSERT_FALSE(closed.empty());
  for (std::size_t i = 0; i < closed.size(); ++i) EXPECT_LE(closed[i], shared[i] * (1 + 1e-9));
  EXPECT_LT(closed.back(), 0.5 * shared.back());
}

double model_parallel_step(const std::filesystem::path& folder, const std::string& network_model) {
  const auto path = model_parallel_scenario(folder, "step", 16, "gpt2_large", "fabric: fat_tree",
                                            "{tensor: 2, pipeline: 2, microbatches: 4}", network_model);
  const auto out = folder / network_model;
  const CommandResult run = run_dtsim("run " + path.string() + " -q -o " + out.string());
  EXPECT_EQ(run.exit_status, 0) << run.err;
  if (run.exit_status != 0) return 0.0;
  return nlohmann::json::parse(read_file(out / "summary.json"))["result"]["simulated_s"].get<double>();
}

TEST(ClosedFormNetwork, TimesAModelParallelStepNoSlowerThanTheAnalyticalNetwork) {
  const auto folder = fresh_output_folder("closed-form-step");
  const double closed = model_parallel_step(folder, "closed_form");
  const double shared = model_parallel_step(folder, "analytical");
  EXPECT_GT(closed, 0.0);
  EXPECT_LE(closed, shared * (1 + 1e-9));
}

// The prediction interval comes from test rows run with links shared (docs/validation.md): a run that shares
// none gets none.
TEST(ClosedFormNetwork, GetsNoPredictionInterval) {
  const auto folder = fresh_output_folder("closed-form-interval");
  for (const std::string network_model : {"analytical", "closed_form"}) {
    const auto path = folder / (network_model + ".yaml");
    std::ofstream(path) << fmt::format(R"(name: interval
cluster:
  workers: 16
  device: {{name: h100, precision: mixed}}
  nodes: [{{type: dgx_h100, count: 2}}]
topology: {{kind: hierarchical, fabric: fat_tree, nic: per_device, network_model: {}, link: {{bandwidth: 400Gbps, latency: 2us}}}}
model: {{kind: "profile:gpt2_xl"}}
training:
  batch: {{per_worker: 4}}
  optimizer: {{kind: adam, learning_rate: 0.0001}}
  stop: {{iterations: 2}}
)",
                                       network_model);
    const auto out = folder / network_model;
    const CommandResult run = run_dtsim("run " + path.string() + " -o " + out.string());
    ASSERT_EQ(run.exit_status, 0) << run.err;
    const nlohmann::json result = nlohmann::json::parse(read_file(out / "summary.json"))["result"];
    EXPECT_EQ(result.contains("interval"), network_model == "analytical") << network_model;
    // Without one, the summary says why.
    EXPECT_EQ(run.out.find("  interval   none: ") == std::string::npos, network_model == "analytical") << run.out;
  }
}

TEST(ClosedFormNetwork, RefusesWhatItWouldNotTimeInItsOwnWords) {
  const CommandResult tree = run_dtsim("collective --algo double_binary_tree --network-model closed_form --ranks 8");
  EXPECT_EQ(tree.exit_status, 2);
  EXPECT_NE(tree.err.find("--algo: the closed-form network times ring phases and steps of the whole group, and "
                          "'double_binary_tree' sends its messages one by one"),
            std::string::npos)
      << tree.err;
}

}  // namespace
}  // namespace dtsim::testing
