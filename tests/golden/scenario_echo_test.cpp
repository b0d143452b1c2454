// summary.json echoes the scenario exactly as `dtsim explain` prints it: every key the run used, the MLP's
// layers and a node type's devices included, defaults filled in; and sweep points echo their own values.

#include "run_dtsim.hpp"
#include "sim/scenario/resolved_json.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/support/scenario_format.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace dtsim::testing {
namespace {

class ScenarioEcho : public ::testing::TestWithParam<std::string> {};

TEST_P(ScenarioEcho, SummaryEchoesWhatExplainPrints) {
  std::string name = GetParam();
  std::replace(name.begin(), name.end(), '/', '-');
  const auto root = fresh_output_folder("scenario-echo-" + name);
  const std::string file = scenario_path(GetParam()).string();
  const CommandResult explained = run_dtsim("explain " + file);
  ASSERT_EQ(explained.exit_status, 0) << explained.err;
  const CommandResult run = run_dtsim("run " + file + " -q -o " + (root / "run").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto summary = nlohmann::ordered_json::parse(read_file(root / "run" / "summary.json"));
  // The explained YAML, read back, is the resolved document; as JSON it must be the echo, key for key.
  const scenario::Scenario again = scenario::read_scenario_text(dtsim::test::scenario_format(), explained.out, "explained.yaml");
  EXPECT_EQ(summary["scenario"].dump(2), scenario::resolved_json(dtsim::test::scenario_format().schema(), again.resolved).dump(2));
  EXPECT_EQ(summary["origin"]["file"], file);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, ScenarioEcho,
                         ::testing::Values("quickstart.yaml", "models/digits-mlp.yaml", "compare/straggler.yaml",
                                           "faults/unsteady-cluster.yaml"));

TEST(ScenarioEcho, KeepsWhatTheOldEchoLeftOut) {
  const auto root = fresh_output_folder("scenario-echo-mlp");
  const CommandResult run = run_dtsim("run " + scenario_path("models/digits-mlp.yaml").string() + " -q -o " +
                                      (root / "run").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto summary = nlohmann::json::parse(read_file(root / "run" / "summary.json"));
  ASSERT_TRUE(summary["scenario"]["model"].contains("layers")) << summary["scenario"]["model"].dump();
  EXPECT_TRUE(summary["scenario"]["model"]["layers"].is_array());
  EXPECT_TRUE(summary["scenario"]["model"]["layers"][0].is_number_integer());
  EXPECT_TRUE(summary["scenario"]["cluster"]["workers"].is_number_integer());
}

TEST(ScenarioEcho, EachSweepPointEchoesItsOwnValues) {
  const auto root = fresh_output_folder("scenario-echo-sweep");
  const CommandResult run = run_dtsim("run " + scenario_path("teaching/02-learning-rate-sweep.yaml").string() +
                                      " -q -o " + (root / "sweep").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  for (const std::string point : {"learning_rate=0.02", "learning_rate=0.5", "learning_rate=4.0"}) {
    const auto summary = nlohmann::json::parse(read_file(root / "sweep" / point / "summary.json"));
    EXPECT_EQ(summary["origin"]["sweep_point"], point);
    EXPECT_FALSE(summary["scenario"].contains("sweep"));
    EXPECT_DOUBLE_EQ(summary["scenario"]["training"]["optimizer"]["learning_rate"].get<double>(),
                     std::stod(point.substr(point.find('=') + 1)));
  }
}

}  // namespace
}  // namespace dtsim::testing
