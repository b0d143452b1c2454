// `dtsim plan` end to end: on a case small enough to simulate every candidate, the plan that simulates only the
// estimate's best three chooses the exhaustive best; what it writes; what it refuses.

#include "run_dtsim.hpp"
#include "sim/core/csv.hpp"

#include <gtest/gtest.h>

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
  // GPT-2 Medium on two DGX A100 nodes, ZeRO 1, selective recomputation and 1F1B fixed: 70 candidates, all fitting.
  const std::string plan = "plan " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() +
                           " --gpus 16 --zero 1 --recomputation selective --schedule 1f1b -j 2 -q -o ";
  const CommandResult all = run_dtsim(plan + (folder / "all").string() + " --top 1000");
  ASSERT_EQ(all.exit_status, 0) << all.err;
  const auto every = plan_rows(folder / "all" / "plan.csv");
  ASSERT_EQ(every.size(), 70U) << "every candidate simulated";
  const CommandResult three = run_dtsim(plan + (folder / "three").string() + " --top 3");
  ASSERT_EQ(three.exit_status, 0) << three.err;
  const auto best = plan_rows(folder / "three" / "plan.csv");
  ASSERT_EQ(best.size(), 3U);
  EXPECT_EQ(best[0][2], every[0][2]) << "the split chosen";
  EXPECT_EQ(best[0][14], every[0][14]) << "its simulated iteration";
  // Every candidate is listed with its verdict and estimate, the simulated ones marked.
  const std::string candidates = read_file(folder / "three" / "plan_candidates.csv");
  EXPECT_EQ(std::count(candidates.begin(), candidates.end(), '\n'), 71);
  EXPECT_EQ(three.out, "") << "quiet";
  EXPECT_NE(read_file(folder / "three" / "report.html").find("Throughput against memory"), std::string::npos);
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
