// A model trained for real computes its collectives' values apart from their messages (comm/values_apart.hpp):
// every output file is byte for byte the run's with every value sent by message (--values-by-message), for every
// allreduce algorithm, lock-step and stale-synchronous averaging, with and without stragglers.

#include "run_dtsim.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name;
  std::string algorithm;
  int workers;
  std::string sync;
  std::string stragglers;   ///< the scenario's stragglers section, or empty
  std::string topology;
  std::string cluster_extra;  ///< more of the cluster section
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

const std::string kRing = "{kind: ring, link: {bandwidth: \"10Gbps\", latency: \"5us\"}}";

Case make_case(std::string name, std::string algorithm, int workers, std::string sync, std::string stragglers = "",
               std::string topology = kRing, std::string cluster_extra = "") {
  return Case{std::move(name), std::move(algorithm), workers, std::move(sync), std::move(stragglers), std::move(topology),
              std::move(cluster_extra)};
}

std::string scenario_of(const Case& c) {
  return "name: values\nseed: 7\ncluster: {workers: " + std::to_string(c.workers) +
         ", device: {name: core, peak_flops: \"2GFLOPS\", efficiency: 0.5}" + c.cluster_extra + "}\n" +
         "topology: " + c.topology + "\n" +
         "model: {kind: mlp, layers: [6]}\n"
         "data: {kind: synthetic_classification, samples: 800, features: 10}\n"
         "training:\n"
         "  batch: {per_worker: 8}\n"
         "  optimizer: {kind: sgd, learning_rate: 0.2}\n"
         "  sync: " + c.sync + "\n"
         "  architecture: {kind: allreduce, algorithm: " + c.algorithm + "}\n"
         "  stop: {iterations: 12}\n"
         "  evaluate_every: 4\n" +
         c.stragglers;
}

class ValuesApart : public ::testing::TestWithParam<Case> {};

TEST_P(ValuesApart, GiveTheFilesOfEveryValueSentByMessage) {
  const Case& c = GetParam();
  const fs::path folder = fresh_output_folder("values_apart_" + c.name);
  const fs::path file = folder / "scenario.yaml";
  std::ofstream(file) << scenario_of(c);
  const CommandResult apart = run_dtsim("run " + file.string() + " -q -o " + (folder / "apart").string());
  ASSERT_EQ(apart.exit_status, 0) << apart.err;
  const CommandResult by_message =
      run_dtsim("run " + file.string() + " -q --values-by-message -o " + (folder / "by_message").string());
  ASSERT_EQ(by_message.exit_status, 0) << by_message.err;
  const auto expected = files_under(folder / "by_message");
  const auto got = files_under(folder / "apart");
  ASSERT_EQ(got.size(), expected.size());
  for (const auto& [name, content] : expected) {
    ASSERT_TRUE(got.contains(name)) << name;
    EXPECT_TRUE(got.at(name) == content) << name << " differs";
  }
}

const std::string kStraggler = "stragglers:\n  - workers: [1]\n    slowdown: 3\n";
const std::string kRandomStragglers = "stragglers:\n  - distribution: bernoulli\n    probability: 0.2\n    factor: 4\n";
const std::string kHierarchical =
    "{kind: hierarchical, fabric: ring, nic: per_node, link: {bandwidth: \"10Gbps\", latency: \"5us\"}}";
const std::string kQuadNodes =
    ", node_types: {quad: {devices: 4, intra_link: {bandwidth: \"100Gbps\", latency: \"1us\"}}}, "
    "nodes: [{type: quad, count: 4}]";

INSTANTIATE_TEST_SUITE_P(
    Runs, ValuesApart,
    ::testing::Values(make_case("ring_2", "ring", 2, "{strategy: bsp}", ""), make_case("ring_7", "ring", 7, "{strategy: bsp}", ""),
                      make_case("ring_64", "ring", 64, "{strategy: bsp}", ""),
                      make_case("ring_16_straggler", "ring", 16, "{strategy: bsp}", kStraggler),
                      make_case("ring_16_random_stragglers", "ring", 16, "{strategy: bsp}", kRandomStragglers),
                      make_case("tree_5", "tree", 5, "{strategy: bsp}", ""),
                      make_case("tree_16_straggler", "tree", 16, "{strategy: bsp}", kStraggler),
                      make_case("halving_doubling_6", "halving_doubling", 6, "{strategy: bsp}", ""),
                      make_case("halving_doubling_16_straggler", "halving_doubling", 16, "{strategy: bsp}", kStraggler),
                      make_case("double_binary_tree_9", "double_binary_tree", 9, "{strategy: bsp}", ""),
                      make_case("double_binary_tree_16_straggler", "double_binary_tree", 16, "{strategy: bsp}", kStraggler),
                      make_case("direct_5", "direct", 5, "{strategy: bsp}", ""),
                      make_case("direct_12_straggler", "direct", 12, "{strategy: bsp}", kStraggler),
                      make_case("hierarchical_4x4", "hierarchical", 16, "{strategy: bsp}", "", kHierarchical, kQuadNodes),
                      make_case("ring_8_local_sgd", "ring", 8, "{strategy: local_sgd, local_steps: 3}", ""),
                      make_case("ring_8_ssp_straggler", "ring", 8, "{strategy: ssp, staleness: 2}", kStraggler)),
    [](const auto& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace dtsim::testing
