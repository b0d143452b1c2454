// Results that mean what they say on scenarios written by someone else: explain shows each sweep point's
// strategy with every parameter it runs with, sweep.csv holds the axes' values as written, a name that a
// spreadsheet would run as a formula is neutralised in links.csv and read back by dtsim, and -o through a
// symbolic link writes into the folder it points to and keeps the link.

#include "run_dtsim.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBase = R"(cluster: {workers: 2, device: {name: c, peak_flops: 1GFLOPS, efficiency: 0.5}}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: 400, features: 4}
)";

/// A fresh folder `name` holding s.yaml: kBase and `sections` (topology and training).
fs::path scenario_folder(const std::string& name, const std::string& sections) {
  const fs::path folder = fresh_output_folder(name);
  std::ofstream(folder / "s.yaml") << "name: s\n" << kBase << sections;
  return folder;
}

/// `dtsim run -q` of the folder's s.yaml into its out/.
CommandResult run_in(const fs::path& folder) {
  return run_dtsim("run -q " + (folder / "s.yaml").string() + " -o " + (folder / "out").string());
}

TEST(UntrustedInput, ExplainShowsEveryPointsStrategyWithItsParameters) {
  const fs::path folder =
      scenario_folder("explain_strategies",
                      "topology: {kind: parameter_server, link: {bandwidth: 10Gbps, latency: 5us}}\n"
                      "training:\n  batch: {per_worker: 8}\n  optimizer: {learning_rate: 0.1}\n"
                      "  architecture: {kind: parameter_server}\n  sync: {strategy: ssp, staleness: 1}\n"
                      "  stop: {iterations: 4}\nsweep:\n  axes:\n    training.sync.staleness: [1, 3]\n");
  const CommandResult explained = run_dtsim("explain " + (folder / "s.yaml").string());
  ASSERT_EQ(explained.exit_status, 0) << explained.err;
  EXPECT_NE(explained.out.find("# staleness=1: training.sync: {strategy: ssp, staleness: 1}\n"), std::string::npos)
      << explained.out;
  EXPECT_NE(explained.out.find("# staleness=3: training.sync: {strategy: ssp, staleness: 3}\n"), std::string::npos)
      << explained.out;
}

TEST(UntrustedInput, SweepCsvHoldsTheAxisValuesAsWritten) {
  const fs::path folder = scenario_folder("sweep_values",
                                          "topology: {kind: ring, link: {bandwidth: 10Gbps, latency: 5us}}\n"
                                          "training:\n  batch: {per_worker: 8}\n  optimizer: {learning_rate: 0.1}\n"
                                          "  stop: {iterations: 2}\nsweep:\n  axes:\n"
                                          "    training.optimizer.learning_rate: [1.5e+0, 5e-1]\n");
  const CommandResult run = run_in(folder);
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const std::string csv = read_file(folder / "out" / "sweep.csv");
  EXPECT_NE(csv.find("\n\"learning_rate=1.5e_0\",1.5e+0,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n\"learning_rate=5e-1\",5e-1,"), std::string::npos) << csv;
}

TEST(UntrustedInput, FormulaLikeNamesAreNeutralisedInCsvAndReadBack) {
  const fs::path folder = scenario_folder("csv_injection",
                                          "topology:\n  kind: custom\n  link: {bandwidth: 10Gbps, latency: 5us}\n"
                                          "  nodes: [{name: '=HYPERLINK(\"x\")'}, {name: '@w1'}]\n"
                                          "  links: [{from: '=HYPERLINK(\"x\")', to: '@w1'}]\n"
                                          "training:\n  batch: {per_worker: 8}\n  optimizer: {learning_rate: 0.1}\n"
                                          "  stop: {iterations: 2}\n");
  const CommandResult run = run_in(folder);
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const std::string links = read_file(folder / "out" / "links.csv");
  EXPECT_NE(links.find("\"'=HYPERLINK(\"\"x\"\")\",'@w1,"), std::string::npos) << links;
  EXPECT_EQ(links.find("\n="), std::string::npos) << links;
  EXPECT_EQ(links.find(",@"), std::string::npos) << links;
  const CommandResult report = run_dtsim("report " + (folder / "out").string());
  ASSERT_EQ(report.exit_status, 0) << report.err;
  // The busiest-links chart names the link as it is, without the apostrophe.
  EXPECT_NE(read_file(folder / "out" / "report.html").find("\"=HYPERLINK(\\\"x\\\") -\\u003e @w1\""), std::string::npos);
}

TEST(UntrustedInput, OutputThroughASymbolicLinkKeepsTheLink) {
  const fs::path folder = fresh_output_folder("symlink_output");
  fs::create_directories(folder / "real");
  fs::create_directory_symlink(folder / "real", folder / "out");
  const CommandResult run =
      run_dtsim("run -q " + scenario_path("quickstart.yaml").string() + " -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_TRUE(fs::is_symlink(folder / "out"));
  EXPECT_TRUE(fs::exists(folder / "real" / "summary.json"));
  const CommandResult again =
      run_dtsim("run -q " + scenario_path("quickstart.yaml").string() + " -o " + (folder / "out").string());
  ASSERT_EQ(again.exit_status, 0) << again.err;
  EXPECT_TRUE(fs::is_symlink(folder / "out"));
  EXPECT_TRUE(fs::exists(folder / "out" / "summary.json"));
}

}  // namespace
}  // namespace dtsim::testing
