// A cluster run's jobs.csv holds names written by someone else: each stays one cell, and a spreadsheet runs
// none of them as a formula. Its times keep nine significant digits, as metrics.csv's do.

#include "sim/metrics/cluster_result.hpp"

#include "sim/core/csv.hpp"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace dtsim::metrics {
namespace {

TEST(ClusterFiles, JobsCsvNeutralisesFormulasAndQuotesCommasAndQuotes) {
  ClusterResult result;
  result.devices = 2;
  JobResult formula;
  formula.name = "=HYPERLINK(\"http://x\",\"y\")";
  formula.workers = 1;
  formula.placement = "spread";
  formula.end_s = 1.0;
  formula.alone_end_s = 1.0;
  JobResult comma = formula;
  comma.name = "a,\"b\"";
  result.jobs = {formula, comma};
  std::string csv;
  for (const auto& [name, text] : cluster_files(result)) {
    if (name == "jobs.csv") csv = text;
  }
  std::istringstream lines(csv);
  std::string header;
  std::string first;
  std::string second;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(first.rfind("\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",1,spread,", 0), 0U) << first;
  EXPECT_EQ(core::csv_cells(first).front(), formula.name);
  EXPECT_EQ(core::csv_cells(second).front(), comma.name);
  EXPECT_EQ(core::csv_cells(second).size(), core::csv_cells(header).size());
}

/// `text`'s lines after its header, each split into its cells.
std::vector<std::vector<std::string>> rows_of(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);
  std::vector<std::vector<std::string>> out;
  while (std::getline(lines, line)) out.push_back(core::csv_cells(line));
  return out;
}

// One job from 0 and one arriving at 1e-12 s that starts at 1e-9 s: six fixed decimals wrote all three moments as
// 0.000000 (three rows of utilization.csv at one time, an arrival and a wait of 0); nine significant digits keep
// each apart and read back as the same doubles.
TEST(ClusterFiles, TimesKeepNineSignificantDigits) {
  ClusterResult result;
  result.devices = 2;
  JobResult first;
  first.name = "a";
  first.workers = 1;
  first.placement = "packed";
  first.end_s = 2.0;
  first.alone_end_s = 1.5;
  first.shared_links.push_back({"l", "x", "y", {"x"}});
  JobResult late = first;
  late.name = "x";
  late.arrival_s = 1e-12;
  late.start_s = 1e-9;
  late.shared_links.clear();
  result.jobs = {first, late};
  std::map<std::string, std::string> files;
  for (const auto& [name, text] : cluster_files(result)) files[name] = text;

  const auto busy = rows_of(files.at("utilization.csv"));  // t_s,busy_devices,running_jobs,waiting_jobs
  ASSERT_EQ(busy.size(), 4U);
  EXPECT_EQ(busy[0][0], "0");
  EXPECT_EQ(std::stod(busy[1][0]), 1e-12);
  EXPECT_EQ(std::stod(busy[2][0]), 1e-9);
  EXPECT_EQ(busy[3][0], "2");

  // job,workers,placement,priority,arrival_s,start_s,wait_s,end_s,run_s,alone_s,slowdown,...
  const auto jobs = rows_of(files.at("jobs.csv"));
  ASSERT_EQ(jobs.size(), 2U);
  EXPECT_EQ(jobs[0][10], "1.33333333");  // 2 s beside the other over 1.5 s alone
  EXPECT_EQ(std::stod(jobs[1][4]), 1e-12);
  EXPECT_EQ(std::stod(jobs[1][5]), 1e-9);
  EXPECT_NEAR(std::stod(jobs[1][6]), 9.99e-10, 1e-18);
}

}  // namespace
}  // namespace dtsim::metrics
