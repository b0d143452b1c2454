// training.stop.target_loss and target_accuracy: a bsp run stops at the first evaluation that reaches the target,
// and up to there it is the run without the target, evaluation for evaluation.

#include "run_dtsim.hpp"
#include "sim/core/csv.hpp"

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

/// The quickstart (bsp over a ring allreduce, 5 epochs, an evaluation every 25 iterations) with `stop` instead.
fs::path quickstart_stopping(const fs::path& folder, const std::string& name, const std::string& stop) {
  const fs::path file = folder / (name + ".yaml");
  std::ofstream(file) << "include: " << nlohmann::json(scenario_path("quickstart.yaml").string()).dump() << "\nname: " << name
                      << "\ntraining:\n  stop: " << stop << "\n";
  return file;
}

TEST(StopTarget, ABspRunStopsAtTheFirstEvaluationAtOrBelowTheTargetLoss) {
  const fs::path folder = fresh_output_folder("stop_target");
  const CommandResult whole = run_dtsim("run " + quickstart_stopping(folder, "whole", "{epochs: 5}").string() + " -q -o " +
                                        (folder / "whole").string());
  ASSERT_EQ(whole.exit_status, 0) << whole.err;
  const std::vector<std::string> rows = lines_of(read_file(folder / "whole" / "metrics.csv"));
  ASSERT_GT(rows.size(), 8U);
  const auto header = core::csv_cells(rows[0]);
  const auto column = static_cast<std::size_t>(std::find(header.begin(), header.end(), "val_loss") - header.begin());
  ASSERT_LT(column, header.size());
  // A target between the fourth and the fifth evaluation's losses (falling there): the fifth reaches it first.
  const double fourth = std::stod(core::csv_cells(rows[4])[column]);
  const double fifth = std::stod(core::csv_cells(rows[5])[column]);
  ASSERT_LT(fifth, fourth);
  double earlier = fourth;
  for (std::size_t r = 1; r <= 4; ++r) earlier = std::min(earlier, std::stod(core::csv_cells(rows[r])[column]));
  ASSERT_LT(fifth, earlier) << "no earlier evaluation may reach the target";
  const double target = (earlier + fifth) / 2.0;
  const CommandResult stopped = run_dtsim("run " + quickstart_stopping(folder, "stopped", "{epochs: 5, target_loss: " + std::to_string(target) + "}").string() +
                                          " -o " + (folder / "stopped").string());
  ASSERT_EQ(stopped.exit_status, 0) << stopped.err;
  const std::vector<std::string> kept = lines_of(read_file(folder / "stopped" / "metrics.csv"));
  ASSERT_EQ(kept.size(), 6U) << "the evaluations up to the fifth";
  for (std::size_t r = 1; r < kept.size(); ++r) EXPECT_EQ(kept[r], rows[r]) << "evaluation " << r;
  const auto summary = nlohmann::json::parse(read_file(folder / "stopped" / "summary.json"));
  const auto& result = summary["result"];
  const auto fifth_row = core::csv_cells(rows[5]);
  EXPECT_EQ(result["iterations"].get<std::int64_t>(), std::stoll(fifth_row[1]));
  EXPECT_EQ(result["stop"]["reached"], true);
  EXPECT_EQ(result["stop"]["iteration"].get<std::int64_t>(), std::stoll(fifth_row[1]));
  // The run ends as its last worker finishes the iteration (a ring's ranks finish nanoseconds apart), well before
  // another iteration (some 70 us) could.
  const double evaluated = std::stod(fifth_row[0]);
  EXPECT_GE(result["simulated_s"].get<double>(), evaluated);
  EXPECT_LT(result["simulated_s"].get<double>() - evaluated, 1e-6) << "nothing runs after the stop";
  EXPECT_NE(stopped.out.find("  stopped    validation loss"), std::string::npos) << stopped.out;
}

TEST(StopTarget, ATargetNeverReachedLetsTheRunGoToItsEnd) {
  const fs::path folder = fresh_output_folder("stop_target_unreached");
  const CommandResult run = run_dtsim("run " + quickstart_stopping(folder, "unreached", "{epochs: 1, target_accuracy: 1}").string() +
                                      " -q -o " + (folder / "unreached").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto summary = nlohmann::json::parse(read_file(folder / "unreached" / "summary.json"));
  EXPECT_EQ(summary["result"]["stop"]["reached"], false);
  EXPECT_EQ(summary["result"]["iterations"].get<std::int64_t>(), summary["result"]["iterations_per_epoch"].get<std::int64_t>());
}

}  // namespace
}  // namespace dtsim::testing
