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
  EXPECT_NE(run.err.find("strong scaling keeps the global batch, 64 (4 workers x 16), which 2 of the worker counts cannot "
                         "split evenly"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("worker counts that divide it: [1, 4]"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(folder / "study")) << "a study that cannot run writes nothing";
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
