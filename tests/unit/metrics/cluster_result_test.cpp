// A cluster run's jobs.csv holds names written by someone else: each stays one cell, and a spreadsheet runs
// none of them as a formula.

#include "sim/metrics/cluster_result.hpp"

#include "sim/core/csv.hpp"

#include <gtest/gtest.h>

#include <sstream>

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

}  // namespace
}  // namespace dtsim::metrics
