// A budget (training.stop.tokens or samples) runs a few iterations and projects the whole run from them: its
// days are the budget over the simulated throughput, and its energy, CO2 and cost the simulated run's per
// iteration, times the iterations.

#include "analysis/summary_table.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/metrics/projection.hpp"
#include "sim/metrics/throughput.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/support/scenario_format.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

namespace dtsim {
namespace projection_test {

std::string budget_scenario(const std::string& model, const std::string& stop, const std::string& extra = "") {
  return R"(name: budget
cluster:
  workers: 8
  device: {name: h100, precision: mixed}
topology:
  kind: ring
  link: {bandwidth: "400Gbps", latency: "2us"}
model: )" + model + R"(
training:
  batch: {per_worker: 4}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: )" + stop + "\n" + extra;
}

struct BudgetRun {
  scenario::Scenario scenario;
  metrics::RunRecord record;
};

BudgetRun simulate(const std::string& text) {
  auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), text, "budget.yaml");
  const checks::Registries registries = checks::make_builtin_registries();
  const runtime::TrainingSetup setup = checks::resolve_scenario(scenario, registries);
  metrics::RunRecord record = runtime::run_training(scenario, setup);
  return {std::move(scenario), std::move(record)};
}

// 8 x 4 sequences of 1,024 tokens an iteration: 32,768,000 tokens are 1,000 iterations, of which 3 run.
TEST(Projection, DaysAreTheTokensOverTheSimulatedTokensPerSecond) {
  const BudgetRun run = simulate(budget_scenario("{kind: \"profile:gpt2_small\"}", "{tokens: 32768000}",
                                                 "energy: {carbon_intensity: 400gCO2/kWh, price_per_device_hour: 2, "
                                                 "price_per_kwh: 0.1}\n"));
  EXPECT_EQ(run.record.iterations, 3);
  const std::optional<metrics::Projection> p = metrics::projection(run.scenario, run.record);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->iterations, 1000);
  EXPECT_DOUBLE_EQ(p->tokens, 32'768'000.0);
  const std::optional<metrics::Throughput> rate = metrics::throughput(run.scenario, run.record);
  ASSERT_TRUE(rate && rate->tokens_per_s);
  EXPECT_NEAR(p->days * 86'400.0, p->tokens / *rate->tokens_per_s, 1e-9 * p->total_s);
  EXPECT_NEAR(p->device_hours, 8.0 * p->total_s / 3600.0, 1e-12 * p->device_hours);
  // Energy, CO2 and cost: the simulated run's per iteration, 1,000 / 3 times over.
  ASSERT_TRUE(run.record.energy && p->kwh && p->co2_kg && p->cost);
  const double kwh = run.record.energy->total_j() / 3.6e6 * 1000.0 / 3.0;
  EXPECT_NEAR(*p->kwh, kwh, 1e-9 * kwh);
  EXPECT_NEAR(*p->co2_kg, 0.4 * kwh, 1e-9 * kwh);
  EXPECT_NEAR(*p->cost, 2.0 * p->device_hours + 0.1 * kwh, 1e-9 * *p->cost);
}

// The energy and cost printed after the projected line are the 3 simulated iterations', and say so; the whole
// run's cost is the projected line's.
TEST(Projection, TheSummarysEnergyAndCostLinesSayTheyAreTheSimulatedIterations) {
  const BudgetRun run = simulate(budget_scenario("{kind: \"profile:gpt2_small\"}", "{tokens: 32768000}",
                                                 "energy: {carbon_intensity: 400gCO2/kWh, price_per_device_hour: 2, "
                                                 "price_per_kwh: 0.1}\n"));
  const std::optional<metrics::Projection> p = metrics::projection(run.scenario, run.record);
  ASSERT_TRUE(p && p->cost);
  const std::string table = analysis::summary_table(run.scenario, run.record, 0.0);
  const auto line_of = [&table](const std::string& start) {
    const std::size_t at = table.find(start);
    return at == std::string::npos ? std::string() : table.substr(at, table.find('\n', at) - at);
  };
  EXPECT_NE(line_of("  projected ").find(fmt::format(", {:.4g} USD", *p->cost)), std::string::npos) << table;
  EXPECT_NE(line_of("  energy ").find("in the 3 simulated iterations;"), std::string::npos) << table;
  EXPECT_NE(line_of("  cost ").find(" USD in the 3 simulated iterations (the whole run's: on the projected line)"),
            std::string::npos)
      << table;
}

// A budget that is not a whole number of iterations rounds up; a model without sequences counts samples.
TEST(Projection, ABudgetOfSamplesRoundsUpToWholeIterations) {
  const BudgetRun run = simulate(budget_scenario("{kind: \"profile:resnet50\"}", "{samples: 100}"));
  const std::optional<metrics::Projection> p = metrics::projection(run.scenario, run.record);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->iterations, 4);  // 100 samples in iterations of 32
  EXPECT_EQ(p->simulated_iterations, 3);
  EXPECT_DOUBLE_EQ(p->samples, 128.0);
  EXPECT_DOUBLE_EQ(p->tokens, 0.0);
  EXPECT_DOUBLE_EQ(p->total_s, 4.0 * run.record.simulated_s / 3.0);
  EXPECT_FALSE(p->kwh.has_value());
  EXPECT_FALSE(p->cost.has_value());
}

// Epochs over a data set of a declared size: each epoch's last batch is a whole iteration.
TEST(Projection, EpochsSizedInSamplesTakeEachEpochsIterationsRoundedUp) {
  const BudgetRun images = simulate(budget_scenario("{kind: \"profile:resnet50\"}", "{epochs: 3, samples_per_epoch: 100}"));
  const std::optional<metrics::Projection> p = metrics::projection(images.scenario, images.record);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->epochs, 3);
  EXPECT_EQ(p->iterations, 12);  // 3 x ceil(100 / 32), not ceil(300 / 32) = 10
  EXPECT_DOUBLE_EQ(p->samples, 12.0 * 32.0);
  EXPECT_DOUBLE_EQ(p->total_s, 12.0 * images.record.simulated_s / 3.0);
}

// In tokens: 2 epochs of 100,000 tokens in iterations of 32 x 1,024 = 32,768 tokens: 2 x 4.
TEST(Projection, EpochsSizedInTokensTakeEachEpochsIterationsRoundedUp) {
  const BudgetRun text = simulate(budget_scenario("{kind: \"profile:gpt2_small\"}", "{epochs: 2, tokens_per_epoch: 100000}"));
  const std::optional<metrics::Projection> q = metrics::projection(text.scenario, text.record);
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->iterations, 8);
  EXPECT_DOUBLE_EQ(q->tokens, 8.0 * 32'768.0);
}

std::string line_starting(const std::string& table, const std::string& start) {
  const std::size_t at = table.find(start);
  return at == std::string::npos ? std::string() : table.substr(at, table.find('\n', at) - at);
}

// A budget of one iteration with checkpoints: its one checkpoint interval is the whole run (the search for the
// best interval had no grid below it, and read past an empty one).
TEST(Projection, ABudgetOfOneIterationWithCheckpointsHasOneInterval) {
  const BudgetRun run = simulate(budget_scenario("{kind: \"profile:gpt2_small\"}", "{tokens: 1}",
                                                 "failures: {random: {mtbf: 1000h}, checkpoint: {every: 100, "
                                                 "storage_bandwidth: 10GB/s}}\n"));
  const std::optional<metrics::Projection> p = metrics::projection(run.scenario, run.record);
  ASSERT_TRUE(p && p->failures && p->failures->best_interval);
  EXPECT_EQ(p->iterations, 1);
  EXPECT_EQ(p->failures->best_interval->every, 1);
}

// A run that would not finish costs inf where a rate is declared, never NaN (an undeclared rate of energy times
// infinite energy).
TEST(Projection, ARunThatWouldNotFinishCostsInfNotNaN) {
  const BudgetRun run = simulate(budget_scenario(
      "{kind: \"profile:gpt2_small\"}", "{tokens: 1000000000}",
      "energy: {carbon_intensity: 400gCO2/kWh, price_per_device_hour: 2, currency: USD}\n"
      "failures: {random: {mtbf: 1ns}, checkpoint: {every: 1, storage_bandwidth: 1B/s}, restart_time: 1e9s}\n"));
  const std::optional<metrics::Projection> p = metrics::projection(run.scenario, run.record);
  ASSERT_TRUE(p && p->cost && p->failures);
  EXPECT_TRUE(std::isinf(*p->cost));
  EXPECT_FALSE(p->failures->best_interval.has_value()) << "no interval lets it finish";
  const std::string table = analysis::summary_table(run.scenario, run.record, 0.0);
  EXPECT_NE(line_starting(table, "  projected ").find("inf USD"), std::string::npos) << table;
  EXPECT_EQ(table.find("nan"), std::string::npos) << table;
  EXPECT_NE(line_starting(table, "  failures ").find("the run would not finish;"), std::string::npos) << table;
}

// A recovery that outlasts the failures because the checkpoint is read back slowly names the storage's bandwidth,
// not the detection or restart, which take 200 s of its 1,493.
TEST(Projection, ARecoveryMostlyReadingTheCheckpointNamesTheStoragesBandwidth) {
  const BudgetRun run = simulate(budget_scenario(
      "{kind: \"profile:gpt2_small\"}", "{tokens: 1000000000}",
      "failures: {random: {mtbf: 1600s}, checkpoint: {every: 1, storage_bandwidth: 1MB/s}}\n"));
  const std::string table = analysis::summary_table(run.scenario, run.record, 0.0);
  EXPECT_NE(table.find("where Young/Daly's interval does not hold: reading the checkpoint back takes 1493 s of it: "
                       "raise failures.checkpoint.storage_bandwidth, or raise the mtbf"),
            std::string::npos)
      << table;
}

// More interruptions than a drawn run walks, in a run that finishes: the expected figures, and why no run is drawn.
TEST(Projection, ARunTooLongToDrawIsProjectedAndSaysWhyNoneWasDrawn) {
  const BudgetRun run = simulate(budget_scenario("{kind: \"profile:resnet50\"}", "{samples: 1e16}",
                                                 "failures: {random: {mtbf: 10000h}, checkpoint: {every: 1, "
                                                 "storage_bandwidth: 10GB/s}}\n"));
  const std::string table = analysis::summary_table(run.scenario, run.record, 0.0);
  EXPECT_EQ(table.find("would not finish"), std::string::npos) << table;
  EXPECT_NE(table.find("interruptions expected are more than a drawn run walks (10^6)"), std::string::npos) << table;
}

// A straggler's trace slows a worker from 0.2 s on: the three iterations simulated end before, and the projection
// repeats them, which the summary says.
TEST(Projection, ATracedRunSaysTheProjectionRepeatsTheSimulatedIterations) {
  const BudgetRun run = simulate(budget_scenario(
      "{kind: \"profile:gpt2_small\"}", "{tokens: 32768000}",
      "stragglers: [{workers: [3], trace: {points: [{at: 0s, factor: 1}, {at: 0.2s, factor: 0.01}]}}]\n"));
  const std::string table = analysis::summary_table(run.scenario, run.record, 0.0);
  EXPECT_NE(table.find("the 3 simulated iterations ran the traces (stragglers[].trace, link_traces) up to "),
            std::string::npos)
      << table;
}

TEST(Projection, ARunWithoutABudgetProjectsNothing) {
  const BudgetRun run = simulate(budget_scenario("{kind: \"profile:resnet50\"}", "{iterations: 2}"));
  EXPECT_FALSE(metrics::projection(run.scenario, run.record).has_value());
}

}  // namespace projection_test
}  // namespace dtsim
