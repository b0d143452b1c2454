// Real math from 1,024 to 16,384 workers (label extensive: minutes, not the quick suite): a sweep of a logistic
// regression trained for real, one sample per worker, under the analytical network gives the same files with one
// thread and with four; at 1,024 workers under SimGrid, the values computed apart give the files of every value
// sent by message.

#include "run_dtsim.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

std::string logistic_sweep(const std::string& network_model, const std::string& workers, const std::string& samples) {
  return "name: logistic-sweep\nseed: 42\n"
         "cluster: {workers: 1024, device: {name: cpu-core, peak_flops: \"100GFLOPS\", efficiency: 0.5}}\n"
         "topology: {kind: ring, network_model: " + network_model + ", link: {bandwidth: \"10Gbps\", latency: \"5us\"}}\n"
         "model: {kind: logistic_regression}\n"
         "data: {kind: synthetic_classification, samples: 1280, features: 64, validation_fraction: 0.2}\n"
         "training:\n"
         "  batch: {per_worker: 1}\n"
         "  optimizer: {kind: sgd, learning_rate: 0.5}\n"
         "  stop: {epochs: 2}\n"
         "sweep:\n"
         "  axes:\n"
         "    cluster.workers: " + workers + "\n"
         "    data.samples: " + samples + "\n"
         "  combine: zip\n";
}

fs::path run_sweep(const fs::path& file, const fs::path& out, const std::string& flags) {
  const CommandResult run = run_dtsim("run " + file.string() + " -q -j 1 " + flags + " -o " + out.string());
  EXPECT_EQ(run.exit_status, 0) << run.err;
  return out;
}

TEST(RealMathSweep, From1024To16384WorkersOneThreadAndFourGiveTheSameFiles) {
  const fs::path folder = fresh_output_folder("real_math_sweep");
  const fs::path file = folder / "sweep.yaml";
  std::ofstream(file) << logistic_sweep("analytical", "[1024, 4096, 16384]", "[1280, 5120, 20480]");
  const auto one = files_under(run_sweep(file, folder / "one", "--threads 1"));
  const auto four = files_under(run_sweep(file, folder / "four", "--threads 4"));
  ASSERT_TRUE(one.contains("sweep.csv"));
  ASSERT_GE(one.size(), 10U);  // three points' summary.json, metrics.csv and links.csv, and the sweep's tables
  EXPECT_TRUE(one == four);
}

TEST(RealMathSweep, At1024WorkersTheValuesApartGiveTheFilesOfEveryValueSentByMessage) {
  const fs::path folder = fresh_output_folder("real_math_by_message");
  const fs::path file = folder / "sweep.yaml";
  std::ofstream(file) << logistic_sweep("alpha_beta", "[1024]", "[1280]");
  const auto apart = files_under(run_sweep(file, folder / "apart", ""));
  const auto by_message = files_under(run_sweep(file, folder / "by_message", "--values-by-message"));
  ASSERT_FALSE(apart.empty());
  EXPECT_TRUE(apart == by_message);
}

}  // namespace
}  // namespace dtsim::testing
