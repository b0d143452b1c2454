// `dtsim plan` end to end: on a case small enough to simulate every candidate, the plan that simulates only the
// estimate's best three chooses the exhaustive best; what it writes; what it refuses.

#include "run_dtsim.hpp"
#include "sim/core/csv.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

/// plan.csv's rows after its header, each as its cells.
std::vector<std::vector<std::string>> plan_rows(const fs::path& file) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(read_file(file));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line)) rows.push_back(core::csv_cells(line));
  return rows;
}

TEST(PlanCommand, TheBestOfTheEstimatesBestThreeIsTheBestOfEveryCandidateSimulated) {
  const fs::path folder = fresh_output_folder("plan_small");
  // GPT-2 Medium on two DGX A100 nodes, ZeRO 1, selective recomputation and 1F1B fixed: 70 splits, each in every
  // order of its degrees above 1 over the ranks: 182 candidates, all fitting.
  const std::string plan = "plan " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() +
                           " --gpus 16 --zero 1 --recomputation selective --schedule 1f1b -j 2 -q -o ";
  const CommandResult all = run_dtsim(plan + (folder / "all").string() + " --top 1000");
  ASSERT_EQ(all.exit_status, 0) << all.err;
  const auto every = plan_rows(folder / "all" / "plan.csv");
  // Every candidate but those estimated exactly as one that holds no more memory (each such twin is listed with
  // the split that stands for it).
  const auto candidates = plan_rows(folder / "all" / "plan_candidates.csv");
  ASSERT_EQ(candidates.size(), 182U);
  const std::size_t twins = static_cast<std::size_t>(std::count_if(candidates.begin(), candidates.end(), [](const auto& row) {
    return !row[16].empty();  // same_estimate_as
  }));
  EXPECT_EQ(every.size(), candidates.size() - twins) << "every candidate simulated but the twins";
  EXPECT_GT(every.size(), 100U);
  const CommandResult three = run_dtsim(plan + (folder / "three").string() + " --top 3");
  ASSERT_EQ(three.exit_status, 0) << three.err;
  const auto best = plan_rows(folder / "three" / "plan.csv");
  ASSERT_EQ(best.size(), 3U);
  EXPECT_EQ(best[0][2], every[0][2]) << "the split chosen";
  EXPECT_EQ(best[0][15], every[0][15]) << "its simulated iteration";
  // Every candidate is listed with its verdict and estimate, the simulated ones marked.
  const std::string listed = read_file(folder / "three" / "plan_candidates.csv");
  EXPECT_EQ(std::count(listed.begin(), listed.end(), '\n'), 183);
  EXPECT_EQ(three.out, "") << "quiet";
  EXPECT_NE(read_file(folder / "three" / "report.html").find("Throughput against memory"), std::string::npos);
}

// --keep-placement keeps the scenario's order: the 70 splits once each.
TEST(PlanCommand, KeepingThePlacementTriesEachSplitOnce) {
  const fs::path folder = fresh_output_folder("plan_kept_placement");
  const CommandResult kept = run_dtsim("plan " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() +
                                       " --gpus 16 --zero 1 --recomputation selective --schedule 1f1b --keep-placement "
                                       "--top 1 -q -o " + (folder / "plan").string());
  ASSERT_EQ(kept.exit_status, 0) << kept.err;
  const auto candidates = plan_rows(folder / "plan" / "plan_candidates.csv");
  EXPECT_EQ(candidates.size(), 70U);
  for (const auto& row : candidates) EXPECT_EQ(row[12], "t-p-d") << row[1];
}

TEST(PlanCommand, RefusesWhatItCannotPlanBeforeWritingAnything) {
  const fs::path folder = fresh_output_folder("plan_refusals");
  const fs::path scenario = scenario_path("plan/gpt2-medium-a100-x16.yaml");
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
