// Real math at scale: the workers' gradients computed on a pool of threads give the same files whatever the number
// of threads, and whole replicas trained for real run under the analytical network with the values of SimGrid's.

#include "run_dtsim.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

/// 16 workers on the digits MLP, batches large enough to go to the pool (kPooledFlops).
std::string digits_scenario(const std::string& network_model, const std::string& sync) {
  return "name: pool\nseed: 11\n"
         "cluster: {workers: 16, device: {name: core, peak_flops: \"5GFLOPS\", efficiency: 0.5}}\n"
         "topology: {kind: ring, network_model: " + network_model + ", link: {bandwidth: \"10Gbps\", latency: \"5us\"}}\n"
         "model: {kind: mlp, layers: [32]}\n"
         "data: {kind: digits}\n"
         "training:\n"
         "  batch: {per_worker: 32}\n"
         "  optimizer: {kind: adam, learning_rate: 0.01}\n"
         "  sync: " + sync + "\n"
         "  stop: {iterations: 20}\n"
         "  evaluate_every: 5\n";
}

/// Runs `text`, written to `file`, into `folder`/`name`.
fs::path run_scenario(const fs::path& folder, const std::string& name, const fs::path& file, const std::string& text,
                      const std::string& flags) {
  std::ofstream(file) << text;
  const fs::path out = folder / name;
  const CommandResult run = run_dtsim("run " + file.string() + " -q " + flags + " -o " + out.string());
  EXPECT_EQ(run.exit_status, 0) << run.err;
  return out;
}

TEST(WorkPool, OneTwoAndFiveThreadsGiveTheSameFiles) {
  const fs::path folder = fresh_output_folder("work_pool");
  for (const std::string sync : {"{strategy: bsp}", "{strategy: ssp, staleness: 2}"}) {
    const std::string text = digits_scenario("alpha_beta", sync);
    const fs::path file = folder / "scenario.yaml";  // one file: summary.json names it
    const auto one = files_under(run_scenario(folder, "one", file, text, "--threads 1"));
    ASSERT_FALSE(one.empty());
    for (const int threads : {2, 5}) {
      const std::string name = "t" + std::to_string(threads);
      const auto many = files_under(run_scenario(folder, name, file, text, "--threads " + std::to_string(threads)));
      EXPECT_TRUE(many == one) << threads << " threads, " << sync;
    }
  }
}

/// The columns of metrics.csv that a run's values make (losses and accuracies), without its times and bytes.
std::vector<std::string> learning_columns(const fs::path& metrics) {
  std::istringstream lines(read_file(metrics));
  std::vector<std::string> out;
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    out.push_back(cells.at(1) + "," + cells.at(3) + "," + cells.at(4) + "," + cells.at(5) + "," + cells.at(6));
  }
  return out;
}

TEST(AnalyticalNetwork, TrainsWholeReplicasForRealWithSimGridsValues) {
  const fs::path folder = fresh_output_folder("analytical_real_math");
  const std::string sync = "{strategy: bsp}";
  const fs::path simgrid = run_scenario(folder, "alpha_beta", folder / "alpha_beta.yaml", digits_scenario("alpha_beta", sync), "");
  const fs::path analytical =
      run_scenario(folder, "analytical", folder / "analytical.yaml", digits_scenario("analytical", sync), "");
  EXPECT_EQ(learning_columns(analytical / "metrics.csv"), learning_columns(simgrid / "metrics.csv"));
  const auto simulated = [](const fs::path& out) {
    const std::string summary = read_file(out / "summary.json");
    const std::size_t at = summary.find("\"simulated_s\": ");
    return std::stod(summary.substr(at + 15));
  };
  // The same ring phases on an uncontended ring, but the analytical network times a phase's chunks as its largest
  // (2,410 parameters in 16 chunks of 150 or 151): within 1e-5 of SimGrid's.
  EXPECT_NEAR(simulated(analytical), simulated(simgrid), 1e-5 * simulated(simgrid));
  EXPECT_GE(simulated(analytical), simulated(simgrid));
}

}  // namespace
}  // namespace dtsim::testing
