// `network_model: analytical` against the same collectives and training steps simulated message by message
// (alpha_beta, every ring round on its own): ring and hierarchical allreduce, ring reduce-scatter and
// allgather on ring, mesh, fat-tree, three-tier fat-tree, torus and hierarchical fabrics up to 256 ranks;
// and the runs it refuses rather than time otherwise.

#include "run_dtsim.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <string>
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

void expect_same(const std::string& arguments, const std::string& analytical, const std::string& exact) {
  SCOPED_TRACE(arguments);
  const std::vector<double> fast = collective_times(arguments + " " + analytical);
  const std::vector<double> slow = collective_times(arguments + " " + exact + " --round-by-round");
  ASSERT_EQ(fast.size(), slow.size());
  ASSERT_FALSE(fast.empty());
  for (std::size_t i = 0; i < fast.size(); ++i) EXPECT_LE(std::abs(fast[i] - slow[i]) / slow[i], kBound) << fast[i] << " " << slow[i];
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
    for (const std::string algorithm : {"hierarchical", "ring"}) {
      expect_same("--op allreduce --algo " + algorithm, "--scenario " + analytical.string(), "--scenario " + exact.string());
    }
  }
}

TEST(AnalyticalNetwork, ATrainingStepTakesTheSameSimulatedTime) {
  // GPT-2 XL on 8 DGX H100 over a three-tier fat tree, gradients in 25 MiB buckets overlapping the backward
  // pass: about 60 ring phases a step, each of every rank.
  const auto folder = fresh_output_folder("analytical-step");
  for (const std::string algorithm : {"ring", "hierarchical"}) {
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
    EXPECT_LE(std::abs(simulated[0] - simulated[1]) / simulated[1], kBound) << simulated[0] << " " << simulated[1];
  }
}

TEST(AnalyticalNetwork, RefusesWhatItWouldNotTime) {
  const CommandResult tree = run_dtsim("collective --algo tree --network-model analytical --ranks 8");
  EXPECT_EQ(tree.exit_status, 2);
  EXPECT_NE(tree.err.find("--algo: the analytical network times ring phases, and 'tree' sends its messages one by one"),
            std::string::npos)
      << tree.err;
  const CommandResult broadcast = run_dtsim("collective --op broadcast --network-model analytical --ranks 8");
  EXPECT_EQ(broadcast.exit_status, 2);
  EXPECT_NE(broadcast.err.find("no broadcast algorithm runs here"), std::string::npos) << broadcast.err;
}

}  // namespace
}  // namespace dtsim::testing
