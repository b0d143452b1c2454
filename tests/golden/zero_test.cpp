// ZeRO against Rajbhandari et al. 2020: the bytes each device sends per step (2 Psi for stages 0 to 2, 3 Psi
// for stage 3, in units of the gradient's size) and what each device holds (16 Psi, 4 Psi + 12 Psi / N,
// 2 Psi + 14 Psi / N, 16 Psi / N for mixed-precision Adam), measured from dtsim's own results.

#include "run_dtsim.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

nlohmann::json result_of(const fs::path& folder) {
  return nlohmann::json::parse(read_file(folder / "summary.json"))["result"];
}

TEST(Zero, EachStageSendsAndHoldsWhatThePaperGives) {
  const auto folder = fresh_output_folder("zero_stages");
  const fs::path file = folder / "zero.yaml";
  std::ofstream(file) << "include: " << scenario_path("parallelism/gpt2-xl-zero.yaml").string()
                      << "\ncluster: {workers: 8}\nmodel: {kind: \"profile:bert_base\"}\ntraining: {stop: {iterations: 2}}\n";
  const CommandResult run = run_dtsim("run " + file.string() + " -q -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const double p = 8.0;
  const double iterations = 2.0;
  std::vector<double> time;
  for (int stage = 0; stage <= 3; ++stage) {
    const nlohmann::json result = result_of(folder / "out" / ("zero=" + std::to_string(stage)));
    const double psi = result["parameters"].get<double>();
    // A ring reduce-scatter or allgather sends (p-1)/p of the block from each device; an allreduce twice that.
    // Blocks are padded to a multiple of the devices, per layer under stage 3: a few elements in 110 million.
    // Mixed precision: gradients and parameters travel in 16 bits (communication_precision: auto).
    const double gradient_sizes = result["bytes_sent"].get<double>() / (iterations * p) / (2.0 * psi) * p / (p - 1);
    EXPECT_NEAR(gradient_sizes, stage == 3 ? 3.0 : 2.0, 1e-4) << "stage " << stage;
    const nlohmann::json& memory = result["memory"][0];
    const double state = memory["total_bytes"].get<double>() - memory["activations_bytes"].get<double>();
    const double expected[] = {16 * psi, 4 * psi + 12 * psi / p, 2 * psi + 14 * psi / p, 16 * psi / p};
    EXPECT_NEAR(state / expected[stage], 1.0, 1e-6) << "stage " << stage;
    EXPECT_TRUE(memory["fits"].get<bool>());
    time.push_back(result["simulated_s"].get<double>());
  }
  // Stage 3 gathers each layer twice a step, before its forward and its backward pass: more time on the wire.
  EXPECT_GT(time[3], time[0]);
}

// ZeRO 1 inside a pipeline (Megatron-LM's distributed optimizer): each stage's replicas reduce-scatter its
// gradients and allgather its parameters, the same bytes as their allreduce on a ring, and each device holds
// 4 Psi_s + 12 Psi_s / N of its stage's Psi_s parameters.
TEST(Zero, InsideAPipelineEachStagePartitionsOverItsReplicas) {
  const auto folder = fresh_output_folder("zero_pipeline");
  const fs::path file = folder / "zero.yaml";
  std::ofstream(file) << R"(name: zero-pipeline
cluster: {workers: 8, device: {name: a100, precision: mixed}}
topology: {kind: ring, link: {bandwidth: "200Gbps", latency: "2us"}}
model: {kind: "profile:bert_base"}
training:
  parallelism: {pipeline: 2, microbatches: 2}
  batch: {per_worker: 4}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
sweep:
  axes:
    training.parallelism.zero: [0, 1]
)";
  const CommandResult run = run_dtsim("run " + file.string() + " -q -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const nlohmann::json whole = result_of(folder / "out" / "zero=0");
  const nlohmann::json partitioned = result_of(folder / "out" / "zero=1");
  EXPECT_NEAR(partitioned["bytes_sent"].get<double>() / whole["bytes_sent"].get<double>(), 1.0, 1e-6);
  ASSERT_EQ(partitioned["memory"].size(), 2U);
  for (std::size_t stage = 0; stage < 2; ++stage) {
    const double psi = whole["memory"][stage]["parameters_bytes"].get<double>() / 2.0;
    const nlohmann::json& memory = partitioned["memory"][stage];
    const double state = memory["total_bytes"].get<double>() - memory["activations_bytes"].get<double>();
    EXPECT_NEAR(state / (4 * psi + 12 * psi / 4), 1.0, 1e-6) << "stage " << stage;  // nine digits in JSON
  }
}

// Values travel at the declared precision: fp32 gradients and parameters take twice the bytes of the 16-bit
// values a mixed-precision device sends by default.
TEST(CommunicationPrecision, BytesFollowThePrecisionValuesTravelIn) {
  const auto folder = fresh_output_folder("wire_precision");
  const fs::path file = folder / "wire.yaml";
  std::ofstream(file) << R"(name: wire
cluster: {workers: 4, device: {name: a100, precision: mixed}}
topology: {kind: ring, link: {bandwidth: "200Gbps", latency: "2us"}}
model: {kind: "profile:bert_base"}
training:
  batch: {per_worker: 4}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
sweep:
  axes:
    training.communication_precision.gradients: [auto, fp32]
    training.communication_precision.parameters: [auto, fp32]
  combine: zip
)";
  const CommandResult run = run_dtsim("run " + file.string() + " -q -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const double sixteen = result_of(folder / "out" / "gradients=auto,parameters=auto")["bytes_sent"].get<double>();
  const double thirty_two = result_of(folder / "out" / "gradients=fp32,parameters=fp32")["bytes_sent"].get<double>();
  const double psi = result_of(folder / "out" / "gradients=auto,parameters=auto")["parameters"].get<double>();
  EXPECT_NEAR(sixteen, 2 * 3 * 2 * psi, 2 * 3 * 2 * 8.0);  // an allreduce: 2 (p-1)/p of 2 Psi bytes from 4 devices
  EXPECT_NEAR(thirty_two / sixteen, 2.0, 1e-6);
}

TEST(Zero, ARunThatDoesNotFitIsRefusedOrSimulatedWhenAskedTo) {
  const auto folder = fresh_output_folder("zero_memory");
  const fs::path file = folder / "big.yaml";
  const auto write = [&](const std::string& training) {
    std::ofstream(file) << "include: " << scenario_path("parallelism/gpt2-xl-zero.yaml").string() << "\ntraining: "
                        << training << "\nsweep: {axes: {training.parallelism.zero: [0]}}\n";
  };
  // 32 sequences of GPT-2 XL's activations (78.3 GiB) and its state exceed an A100's 80 GiB.
  write("{batch: {per_worker: 32}}");
  const CommandResult refused = run_dtsim("run " + file.string() + " -q -o " + (folder / "out").string());
  EXPECT_EQ(refused.exit_status, 2);
  EXPECT_NE(refused.err.find("error: cluster.device: a worker needs 101.5 GiB on its a100"), std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(folder / "out"));
  write("{check_memory: false, batch: {per_worker: 32}}");
  const CommandResult anyway = run_dtsim("run " + file.string() + " -o " + (folder / "out").string());
  ASSERT_EQ(anyway.exit_status, 0) << anyway.err;
  EXPECT_NE(anyway.out.find("  memory     101.5 GiB per worker on a100: DOES NOT FIT its 80 GiB"), std::string::npos)
      << anyway.out;
  EXPECT_FALSE(result_of(folder / "out")["memory"][0]["fits"].get<bool>());
}

// ZeRO 1 with the parameter gathers during the next step's first forward pass (training.overlap_parameter_gather,
// Megatron-Core's --overlap-param-gather): the same bytes as gathering after the step, and no more time; less
// where the forward pass is long enough to hide them. Data parallelism alone and inside a pipeline.
void expect_the_same_bytes_sooner(const std::string& name, const std::string& scenario) {
  const auto folder = fresh_output_folder(name);
  const fs::path file = folder / "gathers.yaml";
  std::ofstream(file) << scenario << "sweep:\n  axes:\n    training.overlap_parameter_gather: [false, true]\n";
  const CommandResult run = run_dtsim("run " + file.string() + " -q -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const nlohmann::json after = result_of(folder / "out" / "overlap_parameter_gather=false");
  const nlohmann::json during = result_of(folder / "out" / "overlap_parameter_gather=true");
  EXPECT_DOUBLE_EQ(during["bytes_sent"].get<double>(), after["bytes_sent"].get<double>());
  EXPECT_LT(during["simulated_s"].get<double>(), after["simulated_s"].get<double>());
}

TEST(Zero, GatheringDuringTheNextForwardPassSendsTheSameBytesSooner) {
  expect_the_same_bytes_sooner("zero_gathers", R"(name: zero-gathers
cluster: {workers: 8, device: {name: a100, precision: mixed}}
topology: {kind: ring, link: {bandwidth: "200Gbps", latency: "2us"}}
model: {kind: "profile:bert_base"}
training:
  parallelism: {zero: 1}
  batch: {per_worker: 32}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 2}
)");
}

TEST(Zero, InsideAPipelineEachChunkWaitsForItsOwnGathers) {
  expect_the_same_bytes_sooner("zero_gathers_pipeline", R"(name: zero-gathers-pipeline
cluster: {workers: 8, device: {name: a100, precision: mixed}}
topology: {kind: ring, link: {bandwidth: "200Gbps", latency: "2us"}}
model: {kind: "profile:bert_base"}
training:
  parallelism: {pipeline: 2, microbatches: 2, zero: 1}
  batch: {per_worker: 32}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 2}
)");
}

}  // namespace
}  // namespace dtsim::testing
