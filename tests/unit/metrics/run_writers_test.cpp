#include "sim/metrics/run_writers.hpp"
#include "sim/metrics/throughput.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/support/scenario_format.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace dtsim::metrics {
namespace {

scenario::Scenario tiny_scenario() {
  return scenario::read_scenario_text(dtsim::test::scenario_format(), R"(name: tiny
seed: 5
cluster: {workers: 2, device: {name: cpu, peak_flops: 1GFLOPS, efficiency: 0.5}}
topology: {kind: ring, link: {bandwidth: 8Gbps, latency: 1us}}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: 100, features: 2}
training:
  batch: {per_worker: 5}
  optimizer: {kind: sgd, learning_rate: 0.1}
  stop: {iterations: 10}
)",
                                      "tiny.yaml");
}

RunRecord tiny_record() {
  RunRecord record;
  record.simulated_s = 0.123456789123;
  record.iterations = 10;
  record.iterations_per_epoch = 5;
  record.parameter_count = 3;
  record.simgrid_version = "3.32.0";
  record.hosts = {{"worker-0", "worker", 0.1, 0.2, 0.3, 400.0, 4}, {"worker-1", "worker", 0.1, 0.2, 0.0, 400.0, 4}};
  record.evaluations = {{0.0, 0, 0.0, 0.69, 0.5, 0.7, 0.49, 0.0}, {0.12, 10, 2.0, 0.2, 0.9, 0.25, 0.88, 800.0}};
  return record;
}

TEST(RunWriters, MetricsCsvHasOneRowPerEvaluation) {
  EXPECT_EQ(metrics_csv(tiny_scenario(), tiny_record()),
            "sim_time_s,iteration,epoch,train_loss,train_accuracy,val_loss,val_accuracy,bytes_sent\n"
            "0,0,0.000000,0.69,0.500000,0.7,0.490000,0\n"
            "0.12,10,2.000000,0.2,0.900000,0.25,0.880000,800\n");
}

TEST(RunWriters, LinksCsvHasOneRowPerDirectionWithItsUtilization) {
  RunRecord record = tiny_record();
  record.simulated_s = 2.0;
  record.links = {{"worker-0--worker-1", "ring", "worker-0", "worker-1", 1e3, 500.0},
                  {"worker-0--worker-1", "ring", "worker-1", "worker-0", 1e3, 0.0}};
  EXPECT_EQ(links_csv(record),
            "link,class,from,to,bandwidth_bytes_per_s,bytes,utilization\n"
            "worker-0--worker-1,ring,worker-0,worker-1,1000,500,0.250000\n"
            "worker-0--worker-1,ring,worker-1,worker-0,1000,0,0.000000\n");
}

TEST(RunWriters, SummaryJsonTotalsBytesPerLinkClassAndNamesTheBusiestLink) {
  RunRecord record = tiny_record();
  record.simulated_s = 1.0;
  record.links = {{"w0--s", "worker", "w0", "s", 1e3, 100.0}, {"w0--s", "worker", "s", "w0", 1e3, 300.0},
                  {"ps--s", "server", "ps", "s", 1e3, 250.0}, {"w1--s", "worker", "w1", "s", 1e3, 50.0}};
  const auto summary = nlohmann::json::parse(summary_json(dtsim::test::scenario_format().schema(), tiny_scenario(), record));
  EXPECT_EQ(summary["result"]["bytes_by_link_class"], (nlohmann::json{{"server", 250.0}, {"worker", 450.0}}));
  EXPECT_EQ(summary["result"]["busiest_link"]["from"], "s");
  EXPECT_EQ(summary["result"]["busiest_link"]["to"], "w0");
  EXPECT_EQ(summary["result"]["busiest_link"]["utilization"], 0.3);
}

TEST(RunWriters, TheBusiestLinkIsTheMostUtilizedNotTheOneThatCarriedMostBytes) {
  RunRecord record = tiny_record();
  record.simulated_s = 1.0;
  // An NVSwitch port carries more bytes at 5% of its rate than a spine link at 18% of its own.
  record.links = {{"nvswitch", "nvlink", "gpu", "sw", 300e9, 15e9}, {"spine", "ib", "leaf", "spine", 50e9, 9e9}};
  const auto summary = nlohmann::json::parse(summary_json(dtsim::test::scenario_format().schema(), tiny_scenario(), record));
  EXPECT_EQ(summary["result"]["busiest_link"]["link"], "spine");
  EXPECT_DOUBLE_EQ(summary["result"]["busiest_link"]["utilization"].get<double>(), 0.18);
}

TEST(RunWriters, TimingOnlyRunsWriteOneMetricsRowPerIteration) {
  RunRecord record = tiny_record();
  record.evaluations.clear();
  record.iteration_ends = {0.5, 0.75, 1.0};
  record.samples_per_iteration = 10;
  record.model_flops_per_sample = 1e8;  // 10 samples in 0.25 s on 2 x 1 GFLOPS: 40 samples/s, MFU 2
  record.iterations = 3;
  EXPECT_EQ(metrics_csv(tiny_scenario(), record),
            "iteration,sim_time_s,iteration_s,samples_per_s,model_flops_utilization\n"
            "1,0.5,0.5,20,1\n"
            "2,0.75,0.25,40,2\n"
            "3,1,0.25,40,2\n");
  record.tokens_per_sample = 4;
  EXPECT_EQ(metrics_csv(tiny_scenario(), record).substr(0, 89),
            "iteration,sim_time_s,iteration_s,samples_per_s,tokens_per_s,model_flops_utilization\n1,0.5");
}

TEST(RunWriters, SummaryJsonHasScenarioResultAndHosts) {
  const auto summary = nlohmann::json::parse(summary_json(dtsim::test::scenario_format().schema(), tiny_scenario(), tiny_record()));
  EXPECT_EQ(summary["seed"], 5);
  EXPECT_EQ(summary["simgrid_version"], "3.32.0");
  EXPECT_EQ(summary["scenario"]["name"], "tiny");
  EXPECT_EQ(summary["scenario"]["topology"]["link"]["latency"], "1us");
  EXPECT_EQ(summary["scenario"]["training"]["sync"]["strategy"], "bsp") << "defaults are filled in";
  EXPECT_EQ(summary["origin"]["file"], (std::filesystem::current_path() / "tiny.yaml").string())
      << "the scenario file by its absolute name, however it was named";
  EXPECT_EQ(summary["result"]["simulated_s"], 0.123456789123);  // full precision
  EXPECT_EQ(summary["result"]["iterations"], 10);
  EXPECT_EQ(summary["result"]["epochs"], 2.0);
  EXPECT_EQ(summary["result"]["bytes_sent"], 800.0);
  EXPECT_EQ(summary["result"]["final"]["val_accuracy"], 0.88);
  ASSERT_EQ(summary["hosts"].size(), 2U);
  EXPECT_EQ(summary["hosts"][0]["wait_s"], 0.3);
}

// Model FLOPs utilization: the model's FLOPs done per second over the workers' summed peak. Two 1 GFLOPS
// workers running 10 iterations of 10 samples of 1e7 FLOPs each in 1 s: 100 samples/s, 1e9 FLOP/s, half the peak.
TEST(RunWriters, ThroughputIsSamplesPerSecondAndTheFractionOfThePeakTheModelUsed) {
  RunRecord record = tiny_record();
  EXPECT_FALSE(throughput(tiny_scenario(), record)) << "a model trained for real has no layer table";
  record.simulated_s = 1.0;
  record.iterations = 10;
  record.samples_per_iteration = 10;
  record.model_flops_per_sample = 1e7;
  const std::optional<Throughput> rate = throughput(tiny_scenario(), record);
  ASSERT_TRUE(rate);
  EXPECT_DOUBLE_EQ(rate->samples_per_s, 100.0);
  EXPECT_DOUBLE_EQ(rate->model_flops_utilization, 0.5);
  const auto summary = nlohmann::json::parse(summary_json(dtsim::test::scenario_format().schema(), tiny_scenario(), record));
  EXPECT_EQ(summary["result"]["throughput"]["model_flops_utilization"], 0.5);
  EXPECT_FALSE(summary["result"]["throughput"].contains("tokens_per_s")) << "samples without a sequence";
  record.tokens_per_sample = 2048;
  EXPECT_DOUBLE_EQ(*throughput(tiny_scenario(), record)->tokens_per_s, 204800.0);
}

TEST(RunWriters, WritesTheThreeFilesIntoANewFolder) {
  const auto folder = std::filesystem::path(DTSIM_TEST_OUTPUT_DIR) / "run_writers" / "nested" / "folder";
  std::filesystem::remove_all(folder.parent_path());
  write_run_outputs(folder, run_files(dtsim::test::scenario_format().schema(), tiny_scenario(), tiny_record(), nullptr));
  EXPECT_TRUE(std::filesystem::exists(folder / "summary.json"));
  EXPECT_TRUE(std::filesystem::exists(folder / "metrics.csv"));
  EXPECT_TRUE(std::filesystem::exists(folder / "links.csv"));
}

}  // namespace
}  // namespace dtsim::metrics
