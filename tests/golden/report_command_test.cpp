// What a reader of the terminal and of `dtsim report` meets: cost and CO2 on stdout where rates are given,
// aggregates instead of a line per host for large clusters, and a clear error for a folder without results.

#include "run_dtsim.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

TEST(ReportCommand, AFolderWithoutResultsIsAnErrorNamingIt) {
  const fs::path folder = fresh_output_folder("report_no_results");
  fs::create_directories(folder / "empty");
  const CommandResult run = run_dtsim("report " + (folder / "empty").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_NE(run.err.find((folder / "empty" / "summary.json").string() + ": error: no summary.json here"), std::string::npos)
      << run.err;
  EXPECT_FALSE(fs::exists(folder / "empty" / "report.html"));
}

TEST(ReportCommand, ARunWithEnergyRatesPrintsItsCo2AndCost) {
  const fs::path folder = fresh_output_folder("report_cost");
  std::ofstream(folder / "s.yaml") << "include: " << scenario_path("energy/cost-of-waiting.yaml").string()
                                   << "\nsweep: {axes: {stragglers.0.slowdown: [4]}}\n";
  const CommandResult run = run_dtsim("run " + (folder / "s.yaml").string() + " --point slowdown=4 -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto energy = nlohmann::json::parse(read_file(folder / "out" / "summary.json"))["result"]["energy"];
  std::smatch line;
  ASSERT_TRUE(std::regex_search(run.out, line, std::regex("  cost       ([0-9.e+-]+) kg CO2, ([0-9.e+-]+) ([A-Z]+)\n"))) << run.out;
  EXPECT_NEAR(std::stod(line[1]), energy["co2_kg"].get<double>(), 1e-5 * energy["co2_kg"].get<double>());
  EXPECT_NEAR(std::stod(line[2]), energy["cost"].get<double>(), 1e-5 * energy["cost"].get<double>());
  EXPECT_EQ(line[3], energy["currency"].get<std::string>());
}

TEST(ReportCommand, AManyHostRunPrintsAggregatesAndTheSlowestHosts) {
  const fs::path folder = fresh_output_folder("report_many_hosts");
  std::ofstream(folder / "s.yaml") << "include: " << scenario_path("quickstart.yaml").string()
                                   << "\ncluster: {workers: 40}\nstragglers: [{workers: [17], slowdown: 3}]\n"
                                      "training: {stop: {iterations: 3}}\n";
  const CommandResult run = run_dtsim("run " + (folder / "s.yaml").string() + " -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_NE(run.out.find("  (min)  "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("  (median)  "), std::string::npos);
  EXPECT_NE(run.out.find("  (max)  "), std::string::npos);
  const std::size_t slowest = run.out.find("  slowest 5 of 40 hosts (most compute):\n  worker-17 ");
  EXPECT_NE(slowest, std::string::npos) << "the straggler heads the slowest hosts\n" << run.out;
  EXPECT_EQ(run.out.find("  worker-39 "), std::string::npos) << "no line per host";
}

}  // namespace
}  // namespace dtsim::testing
