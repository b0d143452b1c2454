// Gradient accumulation (micro-batches without model parallelism): a timing-only worker computes its
// micro-batches one after the other and its replicas allreduce once per step, so that a step's compute grows
// by one micro-batch's passes per micro-batch, its bytes do not, and one micro-batch's activations are held.

#include "run_dtsim.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

nlohmann::json accumulated_run(const fs::path& folder, int microbatches) {
  const fs::path file = folder / ("m" + std::to_string(microbatches) + ".yaml");
  std::ofstream(file) << "name: accumulation\n"
                         "cluster: {workers: 4, device: {name: a100, precision: mixed}}\n"
                         "topology: {kind: ring, link: {bandwidth: \"100Gbps\", latency: \"2us\"}}\n"
                         "model: {kind: \"profile:bert_base\", sequence_length: 128}\n"
                         "training:\n"
                         "  overlap: false\n"
                         "  batch: {per_worker: "
                      << 8 * microbatches << "}\n  parallelism: {microbatches: " << microbatches
                      << "}\n"
                         "  optimizer: {kind: adam, learning_rate: 0.0001}\n"
                         "  stop: {iterations: 2}\n";
  const fs::path out = folder / ("out" + std::to_string(microbatches));
  const CommandResult run = run_dtsim("run " + file.string() + " -q -o " + out.string());
  EXPECT_EQ(run.exit_status, 0) << run.err;
  return nlohmann::json::parse(read_file(out / "summary.json"));
}

TEST(GradientAccumulation, EachMicroBatchAddsItsPassesAndTheStepAllreducesOnce) {
  const auto folder = fresh_output_folder("gradient_accumulation");
  const nlohmann::json one = accumulated_run(folder, 1);
  const nlohmann::json two = accumulated_run(folder, 2);
  const nlohmann::json four = accumulated_run(folder, 4);
  const auto compute = [](const nlohmann::json& summary) { return summary["hosts"][0]["compute_s"].get<double>(); };
  const auto result = [](const nlohmann::json& summary, const char* key) { return summary["result"][key]; };
  // Same micro-batch of 8 each time: compute is the optimizer plus m micro-batches' passes.
  const double passes = compute(two) - compute(one);
  EXPECT_GT(passes, 0.0);
  EXPECT_NEAR(compute(four) - compute(two), 2.0 * passes, 1e-9 * compute(four));
  // One allreduce of the gradients a step, whatever the micro-batches.
  EXPECT_EQ(result(four, "bytes_sent").get<double>(), result(one, "bytes_sent").get<double>());
  // One micro-batch in flight: the activations of a step of 8, not of 32.
  EXPECT_EQ(result(four, "memory")[0]["activations_bytes"].get<double>(),
            result(one, "memory")[0]["activations_bytes"].get<double>());
}

}  // namespace
}  // namespace dtsim::testing
