// `dtsim plan` end to end: on a case small enough to simulate every candidate, the plan that simulates only the
// estimate's best three chooses the exhaustive best; what it writes; what it refuses.

#include "run_dtsim.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

/// GPT-2 Medium on two DGX A100 nodes, ZeRO 1, selective recomputation and 1F1B fixed: 70 candidate splits,
/// every one of which fits.
fs::path small_case(const fs::path& folder) {
  std::ofstream(folder / "small.yaml") << R"(name: small
cluster:
  workers: 16
  device: {name: a100, precision: mixed}
  nodes:
    - {type: dgx_a100, count: 2}
topology: {kind: hierarchical, fabric: fat_tree, arity: 4, nic: per_device, network_model: analytical, link: {bandwidth: "100Gbps", latency: "5us"}}
model: {kind: "profile:gpt2_medium"}
training:
  batch: {global: 32}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
)";
  return folder / "small.yaml";
}

/// plan.csv's rows after its header, each as its cells (the split, quoted, holds no comma).
std::vector<std::vector<std::string>> plan_rows(const fs::path& file) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(read_file(file));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::istringstream cellstream(line);
    std::string cell;
    while (std::getline(cellstream, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST(PlanCommand, TheBestOfTheEstimatesBestThreeIsTheBestOfEveryCandidateSimulated) {
  const fs::path folder = fresh_output_folder("plan_small");
  const std::string fixed = " --gpus 16 --zero 1 --recomputation selective --schedule 1f1b -j 2 -q -o ";
  const CommandResult all = run_dtsim("plan " + small_case(folder).string() + fixed + (folder / "all").string() + " --top 1000");
  ASSERT_EQ(all.exit_status, 0) << all.err;
  const auto every = plan_rows(folder / "all" / "plan.csv");
  ASSERT_EQ(every.size(), 70U) << "every candidate simulated";
  const CommandResult three = run_dtsim("plan " + small_case(folder).string() + fixed + (folder / "three").string() + " --top 3");
  ASSERT_EQ(three.exit_status, 0) << three.err;
  const auto best = plan_rows(folder / "three" / "plan.csv");
  ASSERT_EQ(best.size(), 3U);
  EXPECT_EQ(best[0][2], every[0][2]) << "the split chosen";
  EXPECT_EQ(best[0][15], every[0][15]) << "its simulated iteration";
  // Every candidate is listed with its verdict and estimate, the simulated ones marked.
  const std::string candidates = read_file(folder / "three" / "plan_candidates.csv");
  EXPECT_EQ(std::count(candidates.begin(), candidates.end(), '\n'), 71);
  EXPECT_EQ(three.out, "") << "quiet";
  EXPECT_NE(read_file(folder / "three" / "report.html").find("Throughput against memory"), std::string::npos);
}

TEST(PlanCommand, RefusesWhatItCannotPlanBeforeWritingAnything) {
  const fs::path folder = fresh_output_folder("plan_refusals");
  const fs::path scenario = small_case(folder);
  const CommandResult uneven = run_dtsim("plan " + scenario.string() + " --gpus 12 -o " + (folder / "out").string());
  EXPECT_EQ(uneven.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(uneven.err),
            "dtsim plan: error: --gpus: 12 devices do not fill whole nodes of 8\n"
            "  hint: give multiples of the devices per node\n");
  EXPECT_FALSE(fs::exists(folder / "out"));
  const CommandResult real = run_dtsim("plan " + scenario_path("quickstart.yaml").string() + " --gpus 4 -o " +
                                       (folder / "out").string());
  EXPECT_EQ(real.exit_status, 2);
  EXPECT_NE(real.err.find("error: model.kind: a plan splits a layer table (a `profile:` model)"), std::string::npos) << real.err;
  EXPECT_FALSE(fs::exists(folder / "out"));
}

}  // namespace
}  // namespace dtsim::testing
