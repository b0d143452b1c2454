// The validation table (scenarios/validation/published.csv, docs/validation.md): each published measurement
// against dtsim's prediction, which the scenario golden tests recompute (tests/golden/outputs/validation/,
// byte for byte). Fails when a prediction's throughput error exceeds the bound recorded for its row.

#include "run_dtsim.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace dtsim::testing {
namespace {

struct Row {
  std::string scenario;
  double measured_s = 0.0;
  double bound_percent = 0.0;
  bool test = false;  ///< a test row: it judges constants and fits none
};

/// The cells of each row of `file` under scenarios/validation/, its header checked against `header`.
std::vector<std::vector<std::string>> csv_rows(const std::string& file, const std::string& header) {
  std::ifstream in(std::filesystem::path(DTSIM_SOURCE_DIR) / "scenarios/validation" / file);
  EXPECT_TRUE(in.good()) << file;
  const auto columns = static_cast<std::size_t>(std::count(header.begin(), header.end(), ',') + 1);
  std::vector<std::vector<std::string>> rows;
  bool first = true;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.front() == '#') continue;
    if (first) {
      EXPECT_EQ(line, header);
      first = false;
      continue;
    }
    std::stringstream cells(line);
    std::vector<std::string>& row = rows.emplace_back();
    for (std::string cell; std::getline(cells, cell, ',');) row.push_back(cell);
    EXPECT_EQ(row.size(), columns) << line;
    row.resize(columns);
  }
  return rows;
}

/// The rows of `file` under scenarios/validation/ (published.csv: the dense models' table).
std::vector<Row> table(const std::string& file = "published.csv") {
  std::vector<Row> rows;
  for (const std::vector<std::string>& cells : csv_rows(file, "scenario,iteration_s,bound_percent,split")) {
    EXPECT_TRUE(cells[3] == "fit" || cells[3] == "test") << cells[0];
    rows.push_back({.scenario = cells[0],
                    .measured_s = std::stod(cells[1]),
                    .bound_percent = std::stod(cells[2]),
                    .test = cells[3] == "test"});
  }
  return rows;
}

/// A row's scenario is named from scenarios/validation/; its golden outputs sit at the same place under
/// tests/golden/outputs/.
double predicted_iteration_s(const std::string& scenario) {
  const std::filesystem::path name =
      (std::filesystem::path("validation") / scenario).lexically_normal().replace_extension();
  std::ifstream in(std::filesystem::path(DTSIM_SOURCE_DIR) / "tests/golden/outputs" / name / "summary.json");
  EXPECT_TRUE(in.good()) << name << " has no golden output: add it to the scenario tests";
  const nlohmann::json summary = nlohmann::json::parse(in);
  return summary["result"]["simulated_s"].get<double>() / summary["result"]["iterations"].get<double>();
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

TEST(ValidationTable, EveryPredictionIsWithinItsRecordedBound) {
  const std::vector<Row> rows = table();
  ASSERT_GE(rows.size(), 10U);
  std::vector<double> errors;
  std::vector<double> test_errors;
  for (const Row& row : rows) {
    const double error = 100.0 * (row.measured_s / predicted_iteration_s(row.scenario) - 1.0);
    errors.push_back(std::abs(error));
    if (row.test) test_errors.push_back(std::abs(error));
    EXPECT_LE(std::abs(error), row.bound_percent) << row.scenario << ": " << error << "%";
  }
  // The target, a median error of at most 8% over the test rows and none above 20%, is not met since the
  // table holds 45 rows (docs/validation.md): the medians are held to what was recorded last (13.3% over the
  // test rows, 11.1% over all; 17.2% and 17.2% when the table reached 45 rows), rounded up, plus 2 points, so
  // that they can only get better.
  ASSERT_GE(rows.size(), 40U);
  ASSERT_GE(test_errors.size(), rows.size() / 3);
  EXPECT_LE(median_of(errors), 14.0);
  EXPECT_LE(median_of(test_errors), 16.0);
  RecordProperty("median_error_percent", std::to_string(median_of(errors)));
  RecordProperty("test_median_error_percent", std::to_string(median_of(test_errors)));
  RecordProperty("largest_error_percent", std::to_string(*std::max_element(errors.begin(), errors.end())));
}

/// Every row of `file` within the bound recorded when it was added; every row a test row unless `fit_rows`.
void expect_test_rows_within_bounds(const std::string& file, std::size_t at_least, bool fit_rows = false) {
  const std::vector<Row> rows = table(file);
  ASSERT_GE(rows.size(), at_least);
  for (const Row& row : rows) {
    if (!fit_rows) {
      EXPECT_TRUE(row.test) << row.scenario;
    }
    const double error = 100.0 * (row.measured_s / predicted_iteration_s(row.scenario) - 1.0);
    EXPECT_LE(std::abs(error), row.bound_percent) << row.scenario << ": " << error << "%";
  }
}

// Mixtures of experts (scenarios/validation/mixtures.csv, docs/validation.md). Their errors are far from the dense
// rows' (those on the all-to-all dispatcher most): held apart, so that they neither move the dense table's medians
// nor stand behind its prediction intervals; their test rows stand behind the mixtures' own. Two fit rows of an earlier
// release are held to their bounds too.
TEST(ValidationTable, EveryMixtureIsWithinItsRecordedBound) { expect_test_rows_within_bounds("mixtures.csv", 13, true); }

// FP8 runs (scenarios/validation/fp8.csv): every row a test row, held apart from the 16-bit table as the
// mixtures are, so that they neither move its medians nor stand behind its prediction intervals; with
// Blackwell's test rows they stand behind the FP8 recipes' own.
TEST(ValidationTable, EveryFp8RowIsWithinItsRecordedBound) { expect_test_rows_within_bounds("fp8.csv", 4); }

// Blackwell's dense runs (scenarios/validation/blackwell.csv): fit rows of the earliest release, test rows of the
// later ones, held apart from the Hopper tables.
TEST(ValidationTable, EveryBlackwellRowIsWithinItsRecordedBound) {
  expect_test_rows_within_bounds("blackwell.csv", 18, true);
}

/// The mean watts of one node over a scenario's golden run: its energy (devices, nodes' static power, links) over
/// its simulated time and its nodes.
double predicted_node_power_w(const std::string& scenario, int nodes) {
  std::ifstream in(std::filesystem::path(DTSIM_SOURCE_DIR) / "tests/golden/outputs/validation" /
                   std::filesystem::path(scenario).replace_extension() / "summary.json");
  EXPECT_TRUE(in.good()) << scenario << " has no golden output: add it to the scenario tests";
  const nlohmann::json summary = nlohmann::json::parse(in);
  // Messages moving beside compute draw busy power, not more: no device waits a negative time.
  for (const nlohmann::json& host : summary["hosts"]) EXPECT_GE(host["waiting_j"].get<double>(), 0.0) << host["name"];
  const nlohmann::json& result = summary["result"];
  return result["energy"]["total_j"].get<double>() / result["simulated_s"].get<double>() / nodes;
}

// Measured training power (scenarios/validation/energy.csv, docs/validation.md): the energy model judged as the
// timing model is, every row a test row.
TEST(ValidationTable, EveryEnergyRowIsWithinItsRecordedBound) {
  const std::vector<std::vector<std::string>> rows =
      csv_rows("energy.csv", "scenario,node_power_w,nodes,bound_percent,split");
  ASSERT_GE(rows.size(), 3U);
  for (const std::vector<std::string>& row : rows) {
    EXPECT_EQ(row[4], "test") << row[0];
    const double error = 100.0 * (std::stod(row[1]) / predicted_node_power_w(row[0], std::stoi(row[2])) - 1.0);
    EXPECT_LE(std::abs(error), std::stod(row[3])) << row[0] << ": " << error << "%";
  }
}

// The published NCCL bus-bandwidth curves: every size within its recorded bound (dtsim calibrate exits 1
// when a row is over it). These are simulated here: one collective per size on one node, a fraction of a
// second.
TEST(ValidationTable, EveryCollectiveCurveIsWithinItsRecordedBounds) {
  for (const char* curve : {"nd-a100-v4-allreduce.csv", "nd-h200-v5-allreduce.csv", "v100-dgx1-board-allreduce.csv",
                            "p3dn-x2-allreduce.csv", "p4d-x2-allreduce.csv", "p5-board-allreduce.csv",
                            "p5-x2-allreduce.csv"}) {
    const std::filesystem::path file = std::filesystem::path(DTSIM_SOURCE_DIR) / "scenarios/validation/nccl" / curve;
    const CommandResult check = run_dtsim(fmt::format("calibrate {}", file.string()));
    EXPECT_EQ(check.exit_status, 0) << curve << "\n" << check.out << check.err;
    EXPECT_NE(check.out.find("allreduce 1 KiB"), std::string::npos) << check.out;
  }
}

// `dtsim list devices` says which efficiencies were fitted on the validation table's fit rows (+) and which
// no measurement gives (*), beside those taken from microbenchmarks (unmarked).
TEST(ValidationTable, TheDeviceListSaysWhichEfficienciesWereFitted) {
  const CommandResult list = run_dtsim("list devices");
  ASSERT_EQ(list.exit_status, 0) << list.err;
  EXPECT_NE(list.out.find("sustained: gemm 76%, attention 26%+, convolution 25%+, elementwise 87%"), std::string::npos)
      << list.out;
  EXPECT_NE(list.out.find("sustained: gemm 74%, attention 50%, convolution 21%+, elementwise 79%"), std::string::npos)
      << list.out;
  EXPECT_NE(list.out.find("sustained: gemm 63%+, attention 35%, convolution 50%*, elementwise 87%"), std::string::npos)
      << list.out;
  // The B200: its gemm fitted on the Blackwell table's fit rows, its attention and elementwise measured.
  EXPECT_NE(list.out.find("sustained: gemm 56%+, attention 44%, convolution 50%*, elementwise 84%"), std::string::npos)
      << list.out;
}

}  // namespace
}  // namespace dtsim::testing
