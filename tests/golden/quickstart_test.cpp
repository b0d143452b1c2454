#include "run_dtsim.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace dtsim::testing {
namespace {

struct CsvRow {
  double sim_time_s;
  long iteration;
  double val_loss;
  double val_accuracy;
};

std::vector<CsvRow> read_metrics(const std::filesystem::path& path) {
  std::istringstream lines(read_file(path));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "sim_time_s,iteration,epoch,train_loss,train_accuracy,val_loss,val_accuracy,bytes_sent");
  std::vector<CsvRow> rows;
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::istringstream cell_stream(line);
    for (std::string cell; std::getline(cell_stream, cell, ',');) cells.push_back(cell);
    EXPECT_EQ(cells.size(), 8U) << line;
    rows.push_back({std::stod(cells[0]), std::stol(cells[1]), std::stod(cells[5]), std::stod(cells[6])});
  }
  return rows;
}

TEST(Quickstart, LearnsValidationLossFallsAndAccuracyReachesNinety) {
  const auto folder = fresh_output_folder("quickstart");
  const CommandResult run = run_dtsim("run " + scenario_path("quickstart.yaml").string() + " -o " + folder.string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_NE(run.out.find("results in " + folder.string()), std::string::npos) << run.out;

  const std::vector<CsvRow> rows = read_metrics(folder / "metrics.csv");
  ASSERT_GE(rows.size(), 3U);
  EXPECT_EQ(rows.front().iteration, 0);
  EXPECT_LT(rows.back().val_loss, 0.5 * rows.front().val_loss);
  EXPECT_GE(rows.back().val_accuracy, 0.9);
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_GT(rows[i].sim_time_s, rows[i - 1].sim_time_s);

  const auto summary = nlohmann::json::parse(read_file(folder / "summary.json"));
  EXPECT_EQ(summary["scenario"]["cluster"]["workers"], 8);
  EXPECT_EQ(summary["hosts"].size(), 8U);
  EXPECT_DOUBLE_EQ(summary["result"]["final"]["val_accuracy"].get<double>(), rows.back().val_accuracy);
  EXPECT_GT(summary["result"]["bytes_sent"].get<double>(), 0.0);
}

}  // namespace
}  // namespace dtsim::testing
