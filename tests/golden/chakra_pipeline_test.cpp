// `dtsim chakra` on pipeline jobs: each stage's rank sends what the next one receives, and the stages' traces
// replayed on the scenario take the run's own iteration time; traces of another order are refused by name.

#include "run_dtsim.hpp"
#include "sim/traces/chakra_trace.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <tuple>

namespace dtsim::testing {
namespace {

/// GPT-2 small on A100s in BF16 over `stages` pipeline stages and `replicas` replicas, 4 micro-batches.
std::string pipeline_scenario(int stages, int replicas, const std::string& schedule, const std::string& extra = "") {
  return fmt::format(R"(name: chakra-pipeline
cluster:
  workers: {}
  device: {{name: a100, precision: bf16}}
topology: {{kind: ring, link: {{bandwidth: "100Gbps", latency: "2us"}}}}
model: {{kind: "profile:gpt2_small", sequence_length: 512}}
training:
  batch: {{per_worker: 8}}
  parallelism: {{pipeline: {}, microbatches: 4, schedule: {}{}}}
  optimizer: {{kind: adam, learning_rate: 0.0001}}
  stop: {{iterations: 2}}
)",
                     stages * replicas, stages, schedule, extra);
}

double iteration_s(const std::filesystem::path& folder) {
  const auto summary = nlohmann::json::parse(read_file(folder / "summary.json"));
  return summary["result"]["simulated_s"].get<double>() / summary["result"]["iterations"].get<double>();
}

/// Every send of every rank's trace, and every receive, keyed by (from, to, tag) with their bytes.
using Messages = std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::int64_t>;
std::pair<Messages, Messages> messages(const std::filesystem::path& prefix, int ranks) {
  std::pair<Messages, Messages> out;
  for (int rank = 0; rank < ranks; ++rank) {
    for (const traces::ChakraNode& node : traces::read_chakra_trace(traces::chakra_rank_file(prefix, rank)).nodes) {
      const bool send = node.type == traces::ChakraNodeType::send;
      if (!send && node.type != traces::ChakraNodeType::receive) continue;
      EXPECT_EQ(send ? *node.comm_src : *node.comm_dst, rank) << node.name;
      auto& into = send ? out.first : out.second;
      EXPECT_TRUE(into.emplace(std::tuple{*node.comm_src, *node.comm_dst, *node.comm_tag}, *node.comm_size).second)
          << node.name;
    }
  }
  return out;
}

struct PipelineCase {
  int stages;
  int replicas;
  const char* schedule;
  const char* extra;
  const char* groups;  ///< the comm_groups file's text; "" where none is written
};

class ChakraPipeline : public ::testing::TestWithParam<PipelineCase> {};

TEST_P(ChakraPipeline, EveryStageReceivesWhatTheOneBeforeSentAndTheReplayIsTheRun) {
  const PipelineCase& c = GetParam();
  const std::filesystem::path folder = fresh_output_folder(fmt::format("chakra-pipeline-{}", c.schedule));
  std::ofstream(folder / "pp.yaml") << pipeline_scenario(c.stages, c.replicas, c.schedule, c.extra);
  const int ranks = c.stages * c.replicas;
  const CommandResult exported =
      run_dtsim(fmt::format("chakra {} -o {}", (folder / "pp.yaml").string(), (folder / "et/pp").string()));
  ASSERT_EQ(exported.exit_status, 0) << exported.err;
  const auto [sent, received] = messages(folder / "et/pp", ranks);
  // Each of a replica's stage boundaries carries 4 micro-batches' activations forward and their gradients back.
  EXPECT_EQ(sent.size(), static_cast<std::size_t>(c.replicas * (c.stages - 1) * 4 * 2));
  EXPECT_EQ(sent, received);
  // GPT-2 small's hidden state: 2 sequences of 512 tokens x 768 values in BF16 a micro-batch.
  for (const auto& [key, bytes] : sent) EXPECT_EQ(bytes, 2 * 512 * 768 * 2);
  const std::filesystem::path groups = folder / "et/pp.comm_groups.json";
  EXPECT_EQ(std::filesystem::exists(groups) ? read_file(groups) : "", c.groups);

  const CommandResult replayed =
      run_dtsim(fmt::format("chakra {} --replay {}", (folder / "pp.yaml").string(), (folder / "et/pp").string()));
  ASSERT_EQ(replayed.exit_status, 0) << replayed.err;
  EXPECT_NE(replayed.out.find(fmt::format("replayed {} stages", c.stages)), std::string::npos) << replayed.out;
  EXPECT_NE(replayed.out.find("as 100 layers of 1.2444e+08 parameters, 4 micro-batches"), std::string::npos)
      << replayed.out;
  const CommandResult run =
      run_dtsim(fmt::format("run {} -o {} -q", (folder / "pp.yaml").string(), (folder / "run").string()));
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const double replayed_s = std::stod(replayed.out.substr(replayed.out.rfind(": ") + 2));
  EXPECT_NEAR(replayed_s / iteration_s(folder / "run"), 1.0, 1e-8);
}

INSTANTIATE_TEST_SUITE_P(
    Schedules, ChakraPipeline,
    ::testing::Values(PipelineCase{3, 1, "gpipe", "", ""},
                      // Stages outermost: stage 0 is ranks 0-3, each stage's replicas allreduce over a group.
                      PipelineCase{2, 4, "1f1b", ", placement: [tensor, data, pipeline]",
                                   "{\"1\":[0,1,2,3],\"2\":[4,5,6,7]}\n"}),
    [](const ::testing::TestParamInfo<PipelineCase>& param_info) {
      return std::string(param_info.param.schedule) == "1f1b" ? "OneFOneB" : "GPipe";
    });

TEST(ChakraPipeline, ATraceReplayedOnAnotherRecipeIsRefusedNamingWhatDiffers) {
  const std::filesystem::path folder = fresh_output_folder("chakra-pipeline-refused");
  std::ofstream(folder / "pp.yaml") << pipeline_scenario(2, 1, "1f1b");
  ASSERT_EQ(
      run_dtsim(fmt::format("chakra {} -o {}", (folder / "pp.yaml").string(), (folder / "pp").string())).exit_status,
      0);
  const auto replay_on = [&](const std::string& name, const std::string& text) {
    std::ofstream(folder / name) << text;
    return run_dtsim(fmt::format("chakra {} --replay {}", (folder / name).string(), (folder / "pp").string()));
  };
  const CommandResult gpipe = replay_on("gpipe.yaml", pipeline_scenario(2, 1, "gpipe"));
  EXPECT_EQ(gpipe.exit_status, 2);
  EXPECT_NE(gpipe.err.find("pp.0.et: error: nodes: stage 0's trace runs its passes in 1f1b's order, the scenario's "
                           "schedule is gpipe\n  hint: set training.parallelism.schedule: 1f1b"),
            std::string::npos)
      << gpipe.err;
  std::string two = pipeline_scenario(2, 1, "1f1b");
  two.replace(two.find("microbatches: 4"), 15, "microbatches: 2");
  const CommandResult fewer = replay_on("two.yaml", two);
  EXPECT_EQ(fewer.exit_status, 2);
  EXPECT_NE(fewer.err.find("stage 0's trace runs 4 micro-batches, the scenario 2"), std::string::npos) << fewer.err;
  std::string data = pipeline_scenario(2, 1, "1f1b");
  data.replace(data.find("pipeline: 2, "), 13, "");
  const CommandResult flat = replay_on("data.yaml", data);
  EXPECT_EQ(flat.exit_status, 2);
  EXPECT_NE(flat.err.find("sends or receives: the trace is of a pipeline job"), std::string::npos) << flat.err;
  std::ofstream(folder / "interleaved.yaml") << pipeline_scenario(2, 1, "interleaved_1f1b", ", virtual_stages: 2");
  const CommandResult interleaved =
      run_dtsim(fmt::format("chakra {} -o {}", (folder / "interleaved.yaml").string(), (folder / "il").string()));
  EXPECT_EQ(interleaved.exit_status, 2);
  EXPECT_NE(interleaved.err.find("Chakra traces are written for timing-only data-parallel and pipeline runs"),
            std::string::npos)
      << interleaved.err;
  EXPECT_FALSE(std::filesystem::exists(folder / "il.0.et"));
}

}  // namespace
}  // namespace dtsim::testing
