// What a reader of the terminal and of `dtsim report` meets: cost and CO2 on stdout where rates are given,
// aggregates instead of a line per host for large clusters, and a clear error for a folder without results.

#include "run_dtsim.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <vector>

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

// A result file damaged after the run (a row of garbage in metrics.csv) is refused at its line, never drawn
// from in part.
TEST(ReportCommand, ADamagedMetricsFileIsRefusedAtItsLine) {
  const fs::path folder = fresh_output_folder("report_damaged");
  const CommandResult run = run_dtsim("run " + scenario_path("quickstart.yaml").string() + " -q -o " + (folder / "run").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const std::string file = (folder / "run" / "metrics.csv").string();
  const std::string written = read_file(file);
  const auto lines = std::count(written.begin(), written.end(), '\n');
  std::ofstream(file, std::ios::app) << "garbage,1\n1,2,x,4,5,6,7,8\n";
  const CommandResult report = run_dtsim("report " + (folder / "run").string());
  EXPECT_EQ(report.exit_status, 2);
  EXPECT_NE(report.err.find(fmt::format("{}:{}:1: error: a row of 2 cells where the header names 8", file, lines + 1)),
            std::string::npos) << report.err;
  EXPECT_NE(report.err.find(fmt::format("{}:{}:5: error: column epoch holds text where dtsim writes a number", file,
                                        lines + 2)),
            std::string::npos) << report.err;
  EXPECT_FALSE(fs::exists(folder / "run" / "report.html"));
}

// A summary damaged where compare reads it is refused by report as compare refuses it, and one damaged where only
// the page reads it (a host without its name) is refused naming it too: never an internal error.
TEST(ReportCommand, ADamagedSummaryIsRefusedAsCompareRefusesIt) {
  const fs::path folder = fresh_output_folder("report_damaged_summary");
  const CommandResult run =
      run_dtsim("run " + scenario_path("quickstart.yaml").string() + " -q -o " + (folder / "run").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const fs::path file = folder / "run" / "summary.json";
  const nlohmann::json written = nlohmann::json::parse(read_file(file));
  nlohmann::json summary = written;
  summary["result"].erase("iterations");
  std::ofstream(file) << summary.dump(2);
  const std::string refused = file.string() + ": error: not a dtsim summary: [json.exception.out_of_range.403] key ";
  const std::string hint = " not found\n  hint: run the scenario again with this version of dtsim\n";
  const std::string expected = refused + "'iterations'" + hint;
  const CommandResult compare = run_dtsim("compare " + (folder / "run").string());
  EXPECT_EQ(compare.exit_status, 2);
  EXPECT_EQ(compare.err, expected);
  const CommandResult report = run_dtsim("report " + (folder / "run").string() + " " + (folder / "run").string());
  EXPECT_EQ(report.exit_status, 2);
  EXPECT_EQ(report.err, expected);
  summary = written;
  for (auto& host : summary["hosts"]) host.erase("name");
  std::ofstream(file) << summary.dump(2);
  const CommandResult nameless = run_dtsim("report " + (folder / "run").string());
  EXPECT_EQ(nameless.exit_status, 2);
  EXPECT_EQ(nameless.err, refused + "'name'" + hint);
  EXPECT_FALSE(fs::exists(folder / "run" / "report.html"));
}

// A cluster run's summary holds no run of its own: compare, and a report of several folders, name its jobs' folders
// (where its runs are) instead of asking for the scenario to be run again.
TEST(ReportCommand, ACompareOrReportOfAClusterRunNamesItsJobsFolders) {
  const fs::path folder = fresh_output_folder("report_cluster");
  std::ofstream(folder / "cluster.yaml") << R"(name: two-jobs
cluster: {workers: 8, device: {name: cpu-core, peak_flops: "100GFLOPS", efficiency: 0.5}}
topology: {kind: ring, link: {bandwidth: 10Gbps, latency: 5us}}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: 4000, features: 63}
training:
  batch: {per_worker: 16}
  optimizer: {kind: sgd, learning_rate: 0.5}
  stop: {iterations: 5}
jobs:
  - {name: a, workers: 4}
  - {name: b, workers: 4, arrival: 1ms}
)";
  const fs::path cluster = folder / "cluster";
  const CommandResult run = run_dtsim("run " + (folder / "cluster.yaml").string() + " -q -o " + cluster.string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const std::string expected = (cluster / "summary.json").string() +
                               ": error: the summary of a cluster run (jobs sharing the cluster), not of one run\n"
                               "  hint: give its jobs' folders (" + (cluster / "jobs" / "<job>").string() +
                               "), or `dtsim report " + cluster.string() + "` alone for the cluster's page\n";
  const CommandResult compare = run_dtsim("compare " + cluster.string());
  EXPECT_EQ(compare.exit_status, 2);
  EXPECT_EQ(compare.err, expected);
  const CommandResult report = run_dtsim("report " + cluster.string() + " " + (cluster / "jobs" / "a").string() +
                                         " -o " + (folder / "report.html").string());
  EXPECT_EQ(report.exit_status, 2);
  EXPECT_EQ(report.err, expected);
  const CommandResult jobs =
      run_dtsim("compare " + (cluster / "jobs" / "a").string() + " " + (cluster / "jobs" / "b").string());
  EXPECT_EQ(jobs.exit_status, 0) << jobs.err;
}

/// The Vega-Lite specs of a report page, parsed.
std::vector<nlohmann::json> chart_specs(const std::string& page) {
  std::vector<nlohmann::json> specs;
  const std::regex spec(R"re(<script type="application/json" class="dtsim-spec" data-target="chart-\d+">([^<]*)</script>)re");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), spec); it != std::sregex_iterator(); ++it) {
    specs.push_back(nlohmann::json::parse((*it)[1].str()));
  }
  return specs;
}

// The report's own test draws pages in Chromium (tests/report/report_test.py); this one writes them under
// the sanitizers too: a run's page, several runs' page, and a page that reads a trace.
TEST(ReportCommand, RunsAndComparisonsGetAPageOfChartsWithTheirDataInside) {
  const fs::path folder = fresh_output_folder("report_pages");
  const CommandResult one = run_dtsim("run " + scenario_path("compare/straggler.yaml").string() + " -q --report -o " +
                                      (folder / "straggler").string());
  ASSERT_EQ(one.exit_status, 0) << one.err;
  EXPECT_FALSE(fs::exists(folder / "straggler" / "trace.json")) << "--report alone writes no trace.json";
  const std::string page = read_file(folder / "straggler" / "report.html");
  const auto specs = chart_specs(page);
  EXPECT_NE(page.find("<body data-charts=\"" + std::to_string(specs.size()) + "\">"), std::string::npos);
  ASSERT_GE(specs.size(), 8U);
  for (const auto& spec : specs) EXPECT_TRUE(spec.contains("mark") || spec.contains("layer")) << spec;
  EXPECT_NE(page.find("<h2>Timeline of the first iterations</h2>"), std::string::npos);

  const CommandResult other = run_dtsim("run " + scenario_path("compare/straggler-async.yaml").string() + " -q -o " +
                                        (folder / "async").string());
  ASSERT_EQ(other.exit_status, 0) << other.err;
  const CommandResult both = run_dtsim("report " + (folder / "straggler").string() + " " + (folder / "async").string() +
                                       " -o " + (folder / "both.html").string());
  ASSERT_EQ(both.exit_status, 0) << both.err;
  EXPECT_EQ(both.out, "wrote " + (folder / "both.html").string() + "\n");
  const auto compared = chart_specs(read_file(folder / "both.html"));
  ASSERT_FALSE(compared.empty());
  std::set<std::string> runs;
  for (const auto& row : compared.front()["data"]["values"]) runs.insert(row["run"].get<std::string>());
  EXPECT_EQ(runs, (std::set<std::string>{"straggler", "straggler-async"})) << "one line per run on shared axes";
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
