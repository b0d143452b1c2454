// `dtsim chakra`: a data-parallel run's per-rank work as Chakra execution traces, checked against what the
// same scenario's run computes and sends.

#include "run_dtsim.hpp"
#include "sim/traces/chakra_trace.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace dtsim::testing {
namespace {

/// Four A100s training GPT-2 small in BF16, two micro-batches, gradients allreduced in BF16 after the step.
constexpr const char* kDataParallel = R"(name: chakra-dp
cluster:
  workers: 4
  device: {name: a100, precision: bf16}
topology: {kind: ring, link: {bandwidth: "100Gbps", latency: "2us"}}
model: {kind: "profile:gpt2_small", sequence_length: 512}
training:
  overlap: false
  batch: {per_worker: 8}
  parallelism: {microbatches: 2}
  communication_precision: {gradients: bf16}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 2}
)";

TEST(ChakraExport, EveryRanksWorkIsTheRunsComputeAndItsGradients) {
  const std::filesystem::path folder = fresh_output_folder("chakra-export");
  std::ofstream(folder / "dp.yaml") << kDataParallel;
  const CommandResult exported =
      run_dtsim(fmt::format("chakra {} -o {}", (folder / "dp.yaml").string(), (folder / "et/dp").string()));
  ASSERT_EQ(exported.exit_status, 0) << exported.err;
  EXPECT_EQ(exported.out,
            fmt::format("4 Chakra trace(s) written: {0}.0.et to {0}.3.et\n", (folder / "et/dp").string()));
  const CommandResult run =
      run_dtsim(fmt::format("run {} -o {} -q", (folder / "dp.yaml").string(), (folder / "run").string()));
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto summary = nlohmann::json::parse(read_file(folder / "run/summary.json"));
  const double compute_s =
      summary["hosts"][0]["compute_s"].get<double>() / summary["result"]["iterations"].get<double>();

  const traces::ChakraTrace rank0 = traces::read_chakra_trace(folder / "et/dp.0.et");
  double durations_s = 0.0;
  double gradient_bytes = 0.0;
  int computes = 0;
  for (const traces::ChakraNode& node : rank0.nodes) {
    if (node.type == traces::ChakraNodeType::compute) {
      durations_s += static_cast<double>(node.duration_micros) * 1e-6;
      ++computes;
    } else {
      ASSERT_EQ(node.type, traces::ChakraNodeType::collective) << node.name;
      EXPECT_EQ(*node.comm_type, static_cast<int>(traces::ChakraCollective::all_reduce));
      gradient_bytes += static_cast<double>(*node.comm_size);
    }
  }
  // Each compute node's duration is rounded to the microsecond: at most half of one each.
  EXPECT_NEAR(durations_s, compute_s, 0.5e-6 * computes) << "the trace's compute against the run's";
  // GPT-2 small's 124,439,808 parameters, each gradient in BF16.
  EXPECT_NEAR(gradient_bytes, 2.0 * 124'439'808, 2.0 * 124'439'808 * 0.01);
  // The optimizer's step waits for every allreduce; a data-parallel run's ranks do the same work.
  EXPECT_EQ(rank0.nodes.back().name, "optimizer.step");
  for (int rank = 1; rank < 4; ++rank) {
    EXPECT_EQ(read_file(folder / fmt::format("et/dp.{}.et", rank)), read_file(folder / "et/dp.0.et"));
  }
}

/// The seconds of an iteration `dtsim chakra --replay` prints.
double replayed_s(const std::string& output) {
  const auto at = output.rfind(": ");
  return at == std::string::npos ? 0.0 : std::stod(output.substr(at + 2));
}

TEST(ChakraExport, ATraceDtsimWroteReplaysInTheRunsIterationTime) {
  const std::filesystem::path folder = fresh_output_folder("chakra-replay");
  for (const bool overlap : {false, true}) {
    std::string text = kDataParallel;
    text.replace(text.find("overlap: false"), 14, overlap ? "overlap: true" : "overlap: false");
    const std::filesystem::path scenario = folder / fmt::format("dp-{}.yaml", overlap);
    std::ofstream(scenario) << text;
    const CommandResult exported =
        run_dtsim(fmt::format("chakra {} -o {}", scenario.string(), (folder / "et/dp").string()));
    ASSERT_EQ(exported.exit_status, 0) << exported.err;
    const CommandResult replayed =
        run_dtsim(fmt::format("chakra {} --replay {}", scenario.string(), (folder / "et/dp").string()));
    ASSERT_EQ(replayed.exit_status, 0) << replayed.err;
    EXPECT_NE(replayed.out.find("(476 nodes) as 100 layers of 1.2444e+08 parameters on 4 workers"), std::string::npos)
        << replayed.out;
    const std::filesystem::path run_folder = folder / fmt::format("run-{}", overlap);
    const CommandResult run = run_dtsim(fmt::format("run {} -o {} -q", scenario.string(), run_folder.string()));
    ASSERT_EQ(run.exit_status, 0) << run.err;
    const auto summary = nlohmann::json::parse(read_file(run_folder / "summary.json"));
    const double iteration_s =
        summary["result"]["simulated_s"].get<double>() / summary["result"]["iterations"].get<double>();
    // The compute nodes carry their operations exactly: the replay is the run, to the printed digits.
    EXPECT_NEAR(replayed_s(replayed.out) / iteration_s, 1.0, 1e-8) << "overlap " << overlap;
  }
}

TEST(ChakraExport, ATraceOfOtherCollectivesIsRefusedOnReplay) {
  const std::filesystem::path folder = fresh_output_folder("chakra-replay-refused");
  std::ofstream(folder / "dp.yaml") << kDataParallel;
  const CommandResult replayed =
      run_dtsim(fmt::format("chakra {} --replay {}", (folder / "dp.yaml").string(),
                            (std::filesystem::path(DTSIM_SOURCE_DIR) / "tests/data/chakra/all_to_all").string()));
  EXPECT_EQ(replayed.exit_status, 2);
  EXPECT_NE(replayed.err.find("node 0 ('all_to_all_4npus_1MB') is a collective other than an allreduce"),
            std::string::npos)
      << replayed.err;
}

TEST(ChakraExport, RunsOtherThanTimingOnlyDataParallelAreRefused) {
  const std::filesystem::path folder = fresh_output_folder("chakra-refused");
  std::string tensor = kDataParallel;
  tensor.replace(tensor.find("microbatches: 2"), 15, "tensor: 2");
  std::ofstream(folder / "tp.yaml") << tensor;
  const CommandResult refused =
      run_dtsim(fmt::format("chakra {} -o {}", (folder / "tp.yaml").string(), (folder / "tp").string()));
  EXPECT_EQ(refused.exit_status, 2);
  EXPECT_NE(refused.err.find("Chakra traces are written for timing-only data-parallel and pipeline runs"),
            std::string::npos)
      << refused.err;
  EXPECT_FALSE(std::filesystem::exists(folder / "tp.0.et"));
}

}  // namespace
}  // namespace dtsim::testing
