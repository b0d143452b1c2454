#include "run_dtsim.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

namespace dtsim::testing {
namespace {

long line_count(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

TEST(BadInput, MissingScenarioFileIsOneLineExitTwoNoOutput) {
  const auto folder = fresh_output_folder("missing_file");
  const auto missing = folder / "no_such_scenario.yaml";
  const CommandResult run = run_dtsim("run " + missing.string() + " -o " + (folder / "out").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(run.err, missing.string() + ": error: cannot read scenario file: No such file or directory\n");
  EXPECT_EQ(line_count(run.err), 1);
  EXPECT_FALSE(std::filesystem::exists(folder / "out"));
}

TEST(BadInput, FileThatIsNotYamlIsOneLineExitTwoNoOutput) {
  const auto folder = fresh_output_folder("not_yaml");
  const auto broken = folder / "broken.yaml";
  std::ofstream(broken) << "name: [this is\n  not: closed\n";
  const CommandResult run = run_dtsim("run " + broken.string() + " -o " + (folder / "out").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(run.err.rfind(broken.string() + ":", 0), 0U) << run.err;
  EXPECT_NE(run.err.find("error: not valid YAML"), std::string::npos) << run.err;
  EXPECT_EQ(line_count(run.err), 1);
  EXPECT_FALSE(std::filesystem::exists(folder / "out"));
}

TEST(BadInput, InvalidScenarioExitsTwoAndWritesNothing) {
  const auto folder = fresh_output_folder("invalid");
  const auto invalid = folder / "invalid.yaml";
  std::ofstream(invalid) << "name: x\ncluster: {workers: 0}\n";
  const CommandResult run = run_dtsim("run " + invalid.string() + " -o " + (folder / "out").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_NE(run.err.find(invalid.string() + ":2:20: error: cluster.workers: must be between 1 and 1000000, got 0"),
            std::string::npos)
      << run.err;
  EXPECT_FALSE(std::filesystem::exists(folder / "out"));
}

TEST(BadInput, UnknownOptionIsAUsageErrorWithExitTwo) {
  const CommandResult run = run_dtsim("run --frobnicate");
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_FALSE(run.err.empty());
}

}  // namespace
}  // namespace dtsim::testing
