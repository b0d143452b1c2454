// A worker failure under BSP (scenarios/faults/failure-*.yaml): the job rolls back to its last checkpoint
// and computes the lost steps again from the same state, so it ends with the model of a run without the
// failure, later by exactly the work lost, the downtime and the checkpoints' writing.

#include "run_dtsim.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace dtsim::testing {
namespace {

nlohmann::json run_summary(const std::string& scenario) {
  const auto folder = fresh_output_folder("failure-" + std::filesystem::path(scenario).stem().string());
  const CommandResult run = run_dtsim("run " + scenario_path(scenario).string() + " -q -o " + folder.string());
  EXPECT_EQ(run.exit_status, 0) << run.err;
  return nlohmann::json::parse(read_file(folder / "summary.json"));
}

TEST(FailureRecovery, BspRollsBackToItsCheckpointAndEndsWithTheSameModel) {
  const nlohmann::json baseline = run_summary("models/digits-mlp.yaml");
  const nlohmann::json without = run_summary("faults/failure-no-checkpoint.yaml");
  const nlohmann::json with = run_summary("faults/failure-checkpoints.yaml");
  const double base_s = baseline["result"]["simulated_s"].get<double>();
  for (const nlohmann::json* run : {&without, &with}) {
    const auto& result = (*run)["result"];
    const auto& failures = result["failures"];
    ASSERT_EQ(failures["count"].get<int>(), 1);
    // The same final model: every lost step was computed again from the state it was first computed from.
    EXPECT_EQ(result["final"]["train_loss"], baseline["result"]["final"]["train_loss"]);
    EXPECT_EQ(result["final"]["val_loss"], baseline["result"]["final"]["val_loss"]);
    EXPECT_EQ(result["iterations"], baseline["result"]["iterations"]);
    // Later by the work lost, the downtime and the checkpoints, and by nothing else.
    const double expected = base_s + failures["lost_s"].get<double>() + failures["downtime_s"].get<double>() +
                            failures["checkpoint_s"].get<double>();
    EXPECT_NEAR(result["simulated_s"].get<double>(), expected, 1e-6 * expected);
    const auto& event = failures["events"][0];
    EXPECT_EQ(event["worker"].get<int>(), 2);
    EXPECT_GE(event["noticed_s"].get<double>(), 0.040);
  }
  // Without checkpoints everything before the failure is lost; with one every 40 iterations, at most 40
  // steps, and the downtime includes reading the checkpoint back.
  const auto& lost_without = without["result"]["failures"];
  EXPECT_NEAR(lost_without["lost_s"].get<double>(), lost_without["events"][0]["noticed_s"].get<double>(), 1e-12);
  EXPECT_EQ(lost_without["downtime_s"].get<double>(), 0.007);
  EXPECT_EQ(lost_without["checkpoints"].get<int>(), 0);
  const auto& lost_with = with["result"]["failures"];
  EXPECT_LE(lost_with["lost_steps"].get<int>(), 40);
  EXPECT_GT(lost_with["checkpoints"].get<int>(), 0);
  EXPECT_LT(lost_with["lost_s"].get<double>(), lost_without["lost_s"].get<double>() / 4.0);
  const double read_s = 4810.0 * 4.0 / 200e6;  // parameters (plain SGD keeps no state) at 200 MB/s
  EXPECT_NEAR(lost_with["downtime_s"].get<double>(), 0.007 + read_s, 1e-12);
  EXPECT_NEAR(lost_with["checkpoint_s"].get<double>(), lost_with["checkpoints"].get<double>() * read_s, 1e-12);
}

// `dtsim list failures` gives each catalog's source and every kind's rate with the rows it was derived from.
TEST(FailureRecovery, TheFailureCatalogsAreListedWithTheirSources) {
  const CommandResult list = run_dtsim("list failures");
  ASSERT_EQ(list.exit_status, 0) << list.err;
  EXPECT_NE(list.out.find("llama3_2024: Llama 3 405B pre-training"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("gpu             108335 h per device 196 interruptions (faulty GPU 148"), std::string::npos)
      << list.out;
  EXPECT_NE(list.out.find("host             57700 h per node   46 interruptions"), std::string::npos) << list.out;
}

}  // namespace
}  // namespace dtsim::testing
