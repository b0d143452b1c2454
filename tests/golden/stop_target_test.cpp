// training.stop.target_loss and target_accuracy: a run stops at the first evaluation that reaches the target, and
// up to there it is the run without the target, evaluation for evaluation: bsp replicas in lock step, and runs
// out of lock step (async and SSP servers, gossip, local SGD, SSP by allreduce, staleness-aware).

#include "run_dtsim.hpp"
#include "sim/core/csv.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

/// `scenario` (a file under scenarios/) with `stop` instead.
fs::path stopping(const fs::path& folder, const std::string& scenario, const std::string& name, const std::string& stop) {
  const fs::path file = folder / (name + ".yaml");
  std::ofstream(file) << "include: " << nlohmann::json(scenario_path(scenario).string()).dump() << "\nname: " << name
                      << "\ntraining:\n  stop: " << stop << "\n";
  return file;
}

/// Runs `scenario` for `epochs`, then again with a target loss between its fourth and fifth evaluations' (where
/// the loss falls below every earlier one): the second run must stop at the fifth evaluation, and be the first
/// run evaluation for evaluation up to there. Returns the second run's result and the fifth evaluation's time.
std::pair<nlohmann::json, double> stop_at_the_fifth_evaluation(const std::string& folder_name, const std::string& scenario,
                                                               const std::string& epochs) {
  const fs::path folder = fresh_output_folder(folder_name);
  const CommandResult whole = run_dtsim("run " + stopping(folder, scenario, "whole", "{epochs: " + epochs + "}").string() +
                                        " -q -o " + (folder / "whole").string());
  EXPECT_EQ(whole.exit_status, 0) << whole.err;
  const std::vector<std::string> rows = lines_of(read_file(folder / "whole" / "metrics.csv"));
  EXPECT_GT(rows.size(), 8U);
  if (rows.size() <= 8U) return {};
  const auto header = core::csv_cells(rows[0]);
  const auto column = static_cast<std::size_t>(std::find(header.begin(), header.end(), "val_loss") - header.begin());
  EXPECT_LT(column, header.size());
  const double fifth = std::stod(core::csv_cells(rows[5])[column]);
  double earlier = std::stod(core::csv_cells(rows[1])[column]);
  for (std::size_t r = 1; r <= 4; ++r) earlier = std::min(earlier, std::stod(core::csv_cells(rows[r])[column]));
  EXPECT_LT(fifth, earlier) << "no earlier evaluation may reach the target";
  const double target = (earlier + fifth) / 2.0;
  const std::string stop = "{epochs: " + epochs + ", target_loss: " + fmt::format("{:.17g}", target) + "}";
  const CommandResult stopped = run_dtsim("run " + stopping(folder, scenario, "stopped", stop).string() + " -o " +
                                          (folder / "stopped").string());
  EXPECT_EQ(stopped.exit_status, 0) << stopped.err;
  EXPECT_NE(stopped.out.find("  stopped    validation loss"), std::string::npos) << stopped.out;
  const std::vector<std::string> kept = lines_of(read_file(folder / "stopped" / "metrics.csv"));
  EXPECT_EQ(kept.size(), 6U) << "the evaluations up to the fifth";
  for (std::size_t r = 1; r < kept.size() && r < rows.size(); ++r) EXPECT_EQ(kept[r], rows[r]) << "evaluation " << r;
  auto result = nlohmann::json::parse(read_file(folder / "stopped" / "summary.json"))["result"];
  const auto fifth_row = core::csv_cells(rows[5]);
  EXPECT_EQ(result["iterations"].get<std::int64_t>(), std::stoll(fifth_row[1]));
  EXPECT_EQ(result["stop"]["reached"], true);
  EXPECT_EQ(result["stop"]["iteration"].get<std::int64_t>(), std::stoll(fifth_row[1]));
  return {result, std::stod(fifth_row[0])};
}

TEST(StopTarget, ABspRunStopsAtTheFirstEvaluationAtOrBelowTheTargetLoss) {
  const auto [result, evaluated] = stop_at_the_fifth_evaluation("stop_target", "quickstart.yaml", "5");
  ASSERT_FALSE(result.is_null());
  // The run ends as its last worker finishes the iteration (a ring's ranks finish nanoseconds apart), well before
  // another iteration (some 70 us) could.
  EXPECT_GE(result["simulated_s"].get<double>(), evaluated);
  EXPECT_LT(result["simulated_s"].get<double>() - evaluated, 1e-6) << "nothing runs after the stop";
}

// Out of lock step, the evaluator's verdict ends the run at the evaluation's moment: the other workers' (and
// the servers') work in flight is abandoned.
class StopOutOfLockStep : public ::testing::TestWithParam<std::string> {};

TEST_P(StopOutOfLockStep, TheRunEndsAtTheFirstEvaluationAtOrBelowTheTargetLoss) {
  std::string name = GetParam();
  std::replace(name.begin(), name.end(), '/', '_');
  const auto [result, evaluated] = stop_at_the_fifth_evaluation("stop_target_" + name, GetParam() + ".yaml", "2");
  ASSERT_FALSE(result.is_null());
  EXPECT_NEAR(result["simulated_s"].get<double>(), evaluated, 1e-6 * evaluated) << "nothing runs after the stop";
}

INSTANTIATE_TEST_SUITE_P(Strategies, StopOutOfLockStep,
                         ::testing::Values("compare/no-straggler-async", "compare/no-straggler-ssp",
                                           "compare/no-straggler-gossip", "compare/no-straggler-local-sgd",
                                           "compare/allreduce-no-straggler-ssp", "compare/straggler-staleness-aware"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param.substr(param.param.find('/') + 1);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(StopTarget, ATargetNeverReachedLetsTheRunGoToItsEnd) {
  const fs::path folder = fresh_output_folder("stop_target_unreached");
  const CommandResult run = run_dtsim("run " + stopping(folder, "quickstart.yaml", "unreached", "{epochs: 1, target_accuracy: 1}").string() +
                                      " -q -o " + (folder / "unreached").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto summary = nlohmann::json::parse(read_file(folder / "unreached" / "summary.json"));
  EXPECT_EQ(summary["result"]["stop"]["reached"], false);
  EXPECT_EQ(summary["result"]["iterations"].get<std::int64_t>(), summary["result"]["iterations_per_epoch"].get<std::int64_t>());
}

}  // namespace
}  // namespace dtsim::testing
