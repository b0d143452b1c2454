// `dtsim scale` end to end, on cases computed by hand: a network so fast that only compute counts.

#include "run_dtsim.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

/// ResNet-50's layer table on a 1 TFLOPS device at full efficiency (no memory bandwidth: no roofline), over a
/// network so fast that its allreduce costs nanoseconds: each iteration is B x F + 2P FLOPs (the forward and
/// backward passes of B samples, then SGD's 2 FLOPs per parameter).
fs::path compute_only(const fs::path& folder) {
  std::ofstream(folder / "compute-only.yaml") << R"(name: compute-only
cluster:
  workers: 4
  device: {name: flat, peak_flops: "1TFLOPS", efficiency: 1}
topology:
  kind: ring
  link: {bandwidth: "1000000Tbps", latency: "0us"}
model: {kind: "profile:resnet50"}
training:
  batch: {per_worker: 16}
  optimizer: {kind: sgd, learning_rate: 0.1}
  stop: {iterations: 2}
)";
  return folder / "compute-only.yaml";
}

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::istringstream cellstream(line);
    std::string cell;
    while (std::getline(cellstream, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST(ScaleCommand, ComputeAloneScalesPerfectlyAndTheOptimizersStepIsTheSerialFraction) {
  const fs::path folder = fresh_output_folder("scale_compute_only");
  const CommandResult run = run_dtsim("scale " + compute_only(folder).string() + " --workers 1,2,4,8 -j 2 -o " +
                                      (folder / "study").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto rows = csv_rows(read_file(folder / "study" / "scaling.csv"));
  ASSERT_EQ(rows.size(), 9U);
  // Weak: every worker computes the same batch in the same time.
  for (std::size_t i = 1; i <= 4; ++i) {
    ASSERT_EQ(rows[i][0], "weak");
    const double workers = std::stod(rows[i][1]);
    EXPECT_NEAR(std::stod(rows[i][4]), workers, 1e-6 * workers) << "speedup";
    EXPECT_NEAR(std::stod(rows[i][5]), 1.0, 1e-6) << "efficiency";
  }
  // Strong: the 64 samples split over the workers, SGD's step on every worker: Amdahl with f = 2P / (R T(1)).
  const auto one = nlohmann::json::parse(read_file(folder / "study" / "strong" / "workers=1,per_worker=64" / "summary.json"));
  const double parameters = one["result"]["parameters"].get<double>();
  ASSERT_EQ(rows[5][0], "strong");
  ASSERT_EQ(rows[5][1], "1");
  const double one_worker_s = std::stod(rows[5][2]);
  const double serial = 2.0 * parameters / (1e12 * one_worker_s);
  EXPECT_NEAR(std::stod(rows[5][12]), serial, 0.01 * serial) << "the fitted serial fraction";
  for (std::size_t i = 6; i <= 8; ++i) {
    const double workers = std::stod(rows[i][1]);
    EXPECT_NEAR(std::stod(rows[i][4]), 1.0 / (serial + (1.0 - serial) / workers), 1e-6 * workers) << "speedup";
    EXPECT_NEAR(std::stod(rows[i][6]), serial, 0.01 * serial) << "Karp-Flatt";
  }
  EXPECT_NE(run.out.find("strong scaling: Amdahl's law fits a serial fraction"), std::string::npos) << run.out;
  const std::string report = read_file(folder / "study" / "report.html");
  EXPECT_NE(report.find("<h2>Parallel efficiency</h2>"), std::string::npos);
}

TEST(ScaleCommand, AGlobalBatchTheWorkersCannotSplitIsAnErrorNamingTheCountsThatFit) {
  const fs::path folder = fresh_output_folder("scale_uneven");
  const CommandResult run = run_dtsim("scale " + compute_only(folder).string() + " --workers 1,3,4,6 --mode strong -o " +
                                      (folder / "study").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_NE(run.err.find("strong scaling keeps the global batch, 64 (4 replicas x 16), which 2 of the worker counts cannot "
                         "split evenly over their replicas"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("worker counts that divide it: [1, 4]"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(folder / "study")) << "a study that cannot run writes nothing";
}

/// GPT-2 small split tensor 2 x pipeline 2 on 4 H100s: a study grows its data-parallel replicas of 4 devices.
fs::path split_model(const fs::path& folder) {
  std::ofstream(folder / "split.yaml") << R"(name: split
cluster:
  workers: 4
  device: {name: h100, precision: mixed}
topology:
  kind: ring
  link: {bandwidth: "400Gbps", latency: "2us"}
model: {kind: "profile:gpt2_small", sequence_length: 512}
training:
  parallelism: {tensor: 2, pipeline: 2, microbatches: 4}
  batch: {global: 16}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
)";
  return folder / "split.yaml";
}

// Tensor x pipeline stay as declared and the replicas grow: weak keeps each replica's batch (16), strong splits
// the global 16 over them; every point's summary says its data degree.
TEST(ScaleCommand, AModelParallelStudyGrowsTheReplicas) {
  const fs::path folder = fresh_output_folder("scale_split");
  const CommandResult run =
      run_dtsim("scale " + split_model(folder).string() + " --workers 4,8,16 -j 2 -o " + (folder / "study").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto rows = csv_rows(read_file(folder / "study" / "scaling.csv"));
  ASSERT_EQ(rows.size(), 7U);
  const auto summary = [&](const std::string& mode, const std::string& point) {
    return nlohmann::json::parse(read_file(folder / "study" / mode / point / "summary.json"));
  };
  // The scenario declares its global batch: weak grows it with the replicas, strong keeps it.
  const auto weak = summary("weak", "workers=16,data=4,global=64");
  EXPECT_EQ(weak["result"]["parallelism"]["data"], 4);
  EXPECT_EQ(weak["result"]["parallelism"]["tensor"], 2);
  EXPECT_EQ(weak["scenario"]["training"]["batch"]["global"], 64);
  const auto strong = summary("strong", "workers=16,data=4");
  EXPECT_EQ(strong["result"]["parallelism"]["pipeline"], 2);
  EXPECT_EQ(strong["scenario"]["training"]["batch"]["global"], 16);
}

TEST(ScaleCommand, WorkerCountsThatHoldNoWholeReplicasAreRefused) {
  const fs::path folder = fresh_output_folder("scale_split_uneven");
  const CommandResult run =
      run_dtsim("scale " + split_model(folder).string() + " --workers 4,6,8 -o " + (folder / "study").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_NE(run.err.find("a scaling study grows the data-parallel replicas of 4 devices each (tensor 2 x pipeline 2 x "
                         "context 1), and 1 of the worker counts do not hold whole ones"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("worker counts that do: [4, 8]"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(folder / "study"));
}

TEST(ScaleCommand, AWorkerCountGivenTwiceIsRefusedBeforeAnythingIsWritten) {
  const fs::path folder = fresh_output_folder("scale_twice");
  const CommandResult run =
      run_dtsim("scale " + compute_only(folder).string() + " --workers 1,2,2,4 -o " + (folder / "study").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_NE(run.err.find("dtsim scale: error: --workers: the worker count 2 is given twice"), std::string::npos)
      << run.err;
  EXPECT_FALSE(fs::exists(folder / "study"));
}

TEST(ScaleCommand, AFolderOfOtherFilesIsRefusedAndLeftAsItWas) {
  const fs::path folder = fresh_output_folder("scale_foreign");
  fs::create_directories(folder / "study");
  std::ofstream(folder / "study" / "notes.txt") << "mine";
  const CommandResult run = run_dtsim("scale " + compute_only(folder).string() + " --workers 1,2 -o " +
                                      (folder / "study").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_NE(run.err.find("the folder holds 'notes.txt', which is not part of a scaling study"), std::string::npos) << run.err;
  EXPECT_EQ(read_file(folder / "study" / "notes.txt"), "mine");
  EXPECT_FALSE(fs::exists(folder / "study" / "weak.yaml"));
}

}  // namespace
}  // namespace dtsim::testing
