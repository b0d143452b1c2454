// Runs that do not end as planned say so: a diverged loss, a job that lost every worker, failures timed after
// the end, and failures too frequent to train through. None of them may pass for an ordinary result.

#include "run_dtsim.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

fs::path scenario_file(const fs::path& folder, const std::string& name, const std::string& text) {
  std::ofstream(folder / name) << text;
  return folder / name;
}

nlohmann::json summary_of(const fs::path& folder) { return nlohmann::json::parse(read_file(folder / "summary.json")); }

TEST(RunOutcomes, ADivergedRunIsFlaggedInTheSummaryOnStdoutAndInCompare) {
  const auto folder = fresh_output_folder("outcome_diverged");
  const auto file = scenario_file(folder, "diverged.yaml",
                                  "include: " + scenario_path("quickstart.yaml").string() +
                                      "\nmodel: {kind: mlp, layers: [32]}\ntraining: {optimizer: {learning_rate: 1000000}}\n");
  const CommandResult run = run_dtsim("run " + file.string() + " -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_NE(run.out.find("  diverged   the loss is not a number from iteration 25 (simulated 0.002193 s): lower the "
                         "learning rate\n"),
            std::string::npos)
      << run.out;
  const auto summary = summary_of(folder / "out");
  EXPECT_EQ(summary["result"]["diverged"]["iteration"], 25);
  EXPECT_NEAR(summary["result"]["diverged"]["sim_time_s"].get<double>(), 0.0021927508, 1e-12);
  const std::string metrics = read_file(folder / "out" / "metrics.csv");
  EXPECT_NE(metrics.find("0.0021927508,25,0.403226,nan,0.501875,nan,"), std::string::npos) << metrics;
  EXPECT_EQ(metrics.find("-nan"), std::string::npos);
  const CommandResult compare = run_dtsim("compare " + (folder / "out").string());
  EXPECT_EQ(compare.exit_status, 0) << compare.err;
  EXPECT_NE(compare.out.find("diverged@25"), std::string::npos) << compare.out;
  const CommandResult csv = run_dtsim("compare --csv " + (folder / "out").string());
  EXPECT_NE(csv.out.find(",diverged_at_iteration,"), std::string::npos) << csv.out;
  EXPECT_EQ(csv.out.back(), '\n');
  EXPECT_NE(csv.out.find(",25,,,,,,\n"), std::string::npos) << csv.out;
}

// A budget projected from 3 iterations under lognormal stragglers holds one draw of their factors each, and says
// so beside the projection.
TEST(RunOutcomes, ABudgetProjectedFromRandomStragglersSaysItFollowsTheirDraws) {
  const auto folder = fresh_output_folder("outcome_budget_random_stragglers");
  const auto file = scenario_file(folder, "stragglers.yaml", R"(name: stragglers
cluster:
  workers: 8
  device: {name: h100, precision: mixed}
topology: {kind: ring, link: {bandwidth: "400Gbps", latency: "2us"}}
model: {kind: "profile:gpt2_small"}
training:
  batch: {per_worker: 4}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {tokens: 32768000}
stragglers:
  - {distribution: lognormal, sigma: 0.5}
)");
  const CommandResult run = run_dtsim("run " + file.string() + " -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_NE(run.out.find("(the mean of 3 simulated)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("the 3 simulated iterations drew the stragglers' random factors once each "
                         "(stragglers[].distribution): the projection follows those draws, not the distributions' "
                         "means\n"),
            std::string::npos)
      << run.out;
}

// outputs.target_accuracy reports the first evaluation at or above it, as target_loss reports the first at or
// below; an accuracy never reached says so.
TEST(RunOutcomes, TheTimeToATargetAccuracyIsItsFirstEvaluationAtOrAboveIt) {
  const auto folder = fresh_output_folder("outcome_accuracy");
  const auto file = scenario_file(folder, "accuracy.yaml",
                                  "include: " + scenario_path("quickstart.yaml").string() +
                                      "\noutputs: {target_accuracy: 0.9}\n");
  const CommandResult run = run_dtsim("run " + file.string() + " -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto summary = summary_of(folder / "out");
  const auto& reached = summary["result"]["time_to_accuracy"];
  ASSERT_TRUE(reached["reached"].get<bool>()) << reached;
  EXPECT_EQ(reached["target_accuracy"], 0.9);
  // The metrics' rows: the reported one is the first at or above 0.9.
  std::istringstream rows(read_file(folder / "out" / "metrics.csv"));
  std::string header;
  std::getline(rows, header);
  std::vector<std::string> columns;
  std::istringstream names(header);
  for (std::string name; std::getline(names, name, ',');) columns.push_back(name);
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
  };
  std::int64_t first = -1;
  for (std::string line; first < 0 && std::getline(rows, line);) {
    std::vector<std::string> cells;
    std::istringstream split(line);
    for (std::string cell; std::getline(split, cell, ',');) cells.push_back(cell);
    if (std::stod(cells.at(column("val_accuracy"))) >= 0.9) first = std::stoll(cells.at(column("iteration")));
  }
  EXPECT_EQ(reached["iteration"].get<std::int64_t>(), first);
  EXPECT_NE(run.out.find("  target     validation accuracy 0.9 reached at "), std::string::npos) << run.out;
  const auto unreachable = scenario_file(folder, "never.yaml",
                                         "include: " + scenario_path("quickstart.yaml").string() +
                                             "\noutputs: {target_accuracy: 1}\n");
  const CommandResult never = run_dtsim("run " + unreachable.string() + " -o " + (folder / "never").string());
  ASSERT_EQ(never.exit_status, 0) << never.err;
  EXPECT_FALSE(summary_of(folder / "never")["result"]["time_to_accuracy"]["reached"].get<bool>());
  EXPECT_NE(never.out.find("  target     validation accuracy 1 not reached"), std::string::npos) << never.out;
}

TEST(RunOutcomes, AFailureTimedAfterTheEndIsNamedAsNotMet) {
  const auto folder = fresh_output_folder("outcome_late_failure");
  const auto file = scenario_file(folder, "late.yaml",
                                  "include: " + scenario_path("faults/failure-elastic.yaml").string() +
                                      "\nfailures:\n  events:\n    - {kind: worker, target: \"2\", at: 40ms}\n"
                                      "    - {kind: worker, target: \"1\", at: 500s}\n");
  const CommandResult run = run_dtsim("run " + file.string() + " -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_NE(run.out.find("  not met    worker 1 at 500.000000 s: the run ended (at 0.053946 s) before a step noticed it\n"),
            std::string::npos)
      << run.out;
  const auto failures = summary_of(folder / "out")["result"]["failures"];
  EXPECT_EQ(failures["count"], 1);
  EXPECT_EQ(failures["not_reached"], nlohmann::json::parse(R"([{"failure": "worker 1", "at_s": 500.0}])"));
}

TEST(RunOutcomes, AnElasticJobWhoseLastWorkerFailsIsLost) {
  const auto folder = fresh_output_folder("outcome_job_lost");
  const auto file = scenario_file(folder, "lost.yaml",
                                  "include: " + scenario_path("faults/failure-elastic.yaml").string() +
                                      "\nfailures:\n  events:\n    - {kind: worker, target: \"0\", at: 10ms}\n"
                                      "    - {kind: worker, target: \"1\", at: 10ms}\n"
                                      "    - {kind: worker, target: \"2\", at: 20ms}\n"
                                      "    - {kind: worker, target: \"3\", at: 30ms}\n");
  const CommandResult run = run_dtsim("run " + file.string() + " -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_NE(run.out.find("  JOB LOST   at 0.030027 s every worker had failed for good: the job stopped\n"), std::string::npos)
      << run.out;
  EXPECT_EQ(run.out.find("not met"), std::string::npos) << "the last failure is met, not dropped";
  const auto result = summary_of(folder / "out")["result"];
  EXPECT_EQ(result["failures"]["count"], 4);
  EXPECT_NEAR(result["failures"]["job_lost"]["at_s"].get<double>(), 0.0300266288, 1e-12);
  EXPECT_LT(result["iterations"].get<int>(), 440) << "the iterations the job finished, not the ones it planned";
}

TEST(RunOutcomes, FailuresTooFrequentToTrainThroughAreAnErrorNotAResult) {
  const auto folder = fresh_output_folder("outcome_runaway_failures");
  const auto file = scenario_file(folder, "mtbf.yaml",
                                  "include: " + scenario_path("faults/failure-checkpoints.yaml").string() +
                                      "\nfailures:\n  random: {mtbf: 1ns}\n");
  const CommandResult run = run_dtsim("run " + file.string() + " -o " + (folder / "out").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_NE(run.err.find(file.string() + ":3:3: error: failures.random.mtbf: the job met 10000 failures by 0.000120782 s of "
                                         "simulated time, the most a run may meet: failures this frequent leave no time "
                                         "to train\n  hint: a worker fails every 1e-09 s on average"),
            std::string::npos)
      << run.err;
  EXPECT_FALSE(fs::exists(folder / "out"));
}

// A worker failing every 10 s (the job every 1.25 s) and 2 s to detect each failure: a recovery outlasts the time
// between failures, and the summary says to shorten it rather than to checkpoint every 0.19 s as Young/Daly would.
TEST(RunOutcomes, ARecoveryOutlastingTheTimeBetweenFailuresIsNamedNotCheckpointedAround) {
  const auto folder = fresh_output_folder("outcome_recovery_outlasting");
  const auto file = scenario_file(folder, "slow-recovery.yaml", R"(name: slow-recovery
cluster:
  workers: 8
  device: {name: h100, precision: mixed}
topology: {kind: ring, link: {bandwidth: "400Gbps", latency: "2us"}}
model: {kind: "profile:gpt2_small"}
training:
  batch: {per_worker: 4}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {tokens: 32768000}
failures:
  random: {mtbf: 10s, repair_after: 1s}
  checkpoint: {every: 100, storage_bandwidth: 100GB/s}
  detection_time: 2s
)");
  const CommandResult run = run_dtsim("run " + file.string() + " -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_NE(run.out.find("s between the job's failures, where Young/Daly's interval does not hold: shorten "
                         "failures.detection_time or restart_time, or raise the mtbf\n"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(run.out.find("Young/Daly's interval: "), std::string::npos) << run.out;
}

}  // namespace
}  // namespace dtsim::testing
