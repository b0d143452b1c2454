// Runs of mixtures of experts end to end: what they report of their parameters, and what they do not claim.

#include "run_dtsim.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

namespace dtsim::testing {
namespace {

// profile:gpt with experts (top-2 of 8) against the same GPT dense: the mixture reports its active parameters,
// and its prediction interval is drawn from the mixtures' test rows of its dispatcher, not from the dense rows
// (docs/validation.md); on a GPU no mixture's test row ran on it gets none, saying why; a top_k above the experts
// is refused at its line.
TEST(MixtureOfExperts, ReportsItsActiveParametersAndTheMixturesInterval) {
  const auto folder = fresh_output_folder("mixture-of-experts");
  for (const std::string experts : {"", ", experts: 8, top_k: 2"}) {
    const auto path = folder / (experts.empty() ? "dense.yaml" : "moe.yaml");
    std::ofstream(path) << fmt::format(R"(name: moe
cluster:
  workers: 8
  device: {{name: h100, precision: mixed}}
topology: {{kind: ring, link: {{bandwidth: 400Gbps, latency: 2us}}}}
model: {{kind: "profile:gpt", blocks: 12, hidden_size: 768, heads: 12{}}}
training:
  batch: {{per_worker: 4}}
  optimizer: {{kind: adam, learning_rate: 0.0001}}
  stop: {{iterations: 2}}
)",
                                       experts);
    const auto out = folder / (experts.empty() ? "dense" : "moe");
    const CommandResult run = run_dtsim("run " + path.string() + " -o " + out.string());
    ASSERT_EQ(run.exit_status, 0) << run.err;
    const nlohmann::json result = nlohmann::json::parse(read_file(out / "summary.json"))["result"];
    ASSERT_TRUE(result.contains("interval")) << run.out;
    EXPECT_EQ(result["interval"]["basis"],
              experts.empty() ? "gpt models on hopper GPUs" : "mixtures of experts on the all_to_all dispatcher");
    EXPECT_EQ(result.contains("active_parameters"), !experts.empty());
    if (!experts.empty()) {
      // Each block holds 8 GELU experts of the dense block's size, and a token passes through 2 of them.
      const double block = (768.0 * 3072 + 3072) + (3072.0 * 768 + 768);
      EXPECT_EQ(result["parameters"].get<double>() - result["active_parameters"].get<double>(), 12 * 6 * block);
      EXPECT_NE(run.out.find(fmt::format("({} parameters, {} active)", result["parameters"].get<std::size_t>(),
                                         result["active_parameters"].get<std::size_t>())),
                std::string::npos)
          << run.out;
    }
  }
  // A small mixture on `device` whose tokens go to `top_k` of 8 experts, run from `name`.yaml into `name`.
  const auto run_small = [&folder](const std::string& name, const std::string& device, int top_k) {
    std::ofstream(folder / (name + ".yaml")) << fmt::format(R"(name: moe
cluster: {{workers: 8, device: {{name: {}, precision: mixed}}}}
topology: {{kind: ring, link: {{bandwidth: 400Gbps, latency: 2us}}}}
model: {{kind: "profile:gpt", blocks: 12, hidden_size: 768, heads: 12, experts: 8, top_k: {}}}
training: {{batch: {{per_worker: 4}}, optimizer: {{kind: adam, learning_rate: 0.0001}}, stop: {{iterations: 2}}}}
)",
                                                           device, top_k);
    return run_dtsim("run " + (folder / (name + ".yaml")).string() + " -o " + (folder / name).string());
  };
  // No mixture's test row ran on an A100.
  const CommandResult ampere = run_small("ampere", "a100", 2);
  ASSERT_EQ(ampere.exit_status, 0) << ampere.err;
  EXPECT_FALSE(nlohmann::json::parse(read_file(folder / "ampere" / "summary.json"))["result"].contains("interval"));
  EXPECT_NE(ampere.out.find("  interval   none: no test row of a mixture of experts ran on ampere GPUs (docs/validation.md)\n"),
            std::string::npos)
      << ampere.out;
  const CommandResult bad = run_small("bad", "h100", 9);
  EXPECT_EQ(bad.exit_status, 2);
  EXPECT_NE(bad.err.find("bad.yaml:4:"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("model.top_k: each token sent to 9 of 8 experts"), std::string::npos) << bad.err;
}

nlohmann::json summary_of(const std::filesystem::path& out) {
  return nlohmann::json::parse(read_file(out / "summary.json"));
}

// Megatron-Core's --overlap-moe-expert-parallel-comm (training.overlap_expert_exchange): a forward pass and the
// backward pass of another micro-batch after it run interleaved, each token exchange of one beside the other's
// compute. The same bytes move; the step is shorter, by no more than the expert communication it had; that
// communication is reported as overlapped on a lane of its own, and compute, communication and waiting never
// add up to more than the step. Over an interleaved pipeline the pairs are a forward pass and the backward pass
// after it (one more forward pass of warm-up); with one stage a backward pass and the next forward pass.
TEST(MixtureOfExperts, OverlappedExchangesMoveTheSameBytesAndHidePartOfThem) {
  const auto folder = fresh_output_folder("expert-exchange-overlap");
  for (const int pipeline : {2, 1}) {
    const std::string layout = pipeline > 1 ? "pipeline: 2, virtual_stages: 2, schedule: interleaved_1f1b, " : "";
    const auto path = folder / fmt::format("overlap-p{}.yaml", pipeline);
    std::ofstream(path) << fmt::format(R"(name: overlap
cluster: {{workers: 8, device: {{name: h100, precision: bf16}}}}
topology: {{kind: ring, link: {{bandwidth: 100Gbps, latency: 2us}}}}
model: {{kind: "profile:gpt", blocks: 4, hidden_size: 1024, heads: 16, experts: 8, top_k: 2}}
training:
  parallelism: {{{}expert: 4, microbatches: 4}}
  batch: {{per_worker: 8}}
  optimizer: {{kind: adam, learning_rate: 0.0001}}
  stop: {{iterations: 2}}
outputs: {{trace: true}}
sweep:
  axes:
    training.overlap_expert_exchange: [false, true]
)",
                                       layout);
    const auto out = folder / fmt::format("p{}", pipeline);
    const CommandResult run = run_dtsim("run " + path.string() + " -q -o " + out.string());
    ASSERT_EQ(run.exit_status, 0) << run.err;
    const nlohmann::json serial = summary_of(out / "overlap_expert_exchange=false");
    const nlohmann::json overlapped = summary_of(out / "overlap_expert_exchange=true");
    EXPECT_DOUBLE_EQ(overlapped["result"]["bytes_sent"].get<double>(), serial["result"]["bytes_sent"].get<double>());
    const double before = serial["result"]["simulated_s"].get<double>();
    const double after = overlapped["result"]["simulated_s"].get<double>();
    double most_hidden = 0.0;
    for (const nlohmann::json& host : serial["hosts"]) {
      most_hidden = std::max(most_hidden, host["communication_by_kind_s"]["expert"].get<double>());
    }
    EXPECT_LT(after, before) << "pipeline " << pipeline;
    EXPECT_LE(before - after, most_hidden * (1.0 + 1e-9)) << "pipeline " << pipeline;
    for (const nlohmann::json& host : overlapped["hosts"]) {
      EXPECT_GT(host["overlapped_communication_s"].get<double>(), 0.0) << host["name"];
      const double accounted =
          host["compute_s"].get<double>() + host["communication_s"].get<double>() + host["wait_s"].get<double>();
      EXPECT_LE(accounted, after * (1.0 + 1e-9)) << host["name"];
    }
    const nlohmann::json trace = nlohmann::json::parse(read_file(out / "overlap_expert_exchange=true" / "trace.json"));
    int lane_spans = 0;
    bool named = false;
    for (const nlohmann::json& event : trace["traceEvents"]) {
      if (event.value("name", "") == "overlapped communication" && event["tid"] == 4) ++lane_spans;
      if (event.value("name", "") == "thread_name" && event["tid"] == 4) {
        named = event["args"]["name"] == "expert exchange overlap";
      }
    }
    EXPECT_GT(lane_spans, 0) << "pipeline " << pipeline;
    EXPECT_TRUE(named) << "pipeline " << pipeline;
  }
}

/// Runs a mixture of 16 experts (a token's 2 of them) on two DGX H100 nodes of a rail fabric, its parallelism and
/// sweep axis as given, in `folder`: the sweep's points' folders are under folder / "out".
std::filesystem::path run_two_node_mixture(const std::filesystem::path& folder, const std::string& parallelism,
                                           const std::string& axis) {
  const auto path = folder / "mixture.yaml";
  std::ofstream(path) << fmt::format(R"(name: mixture
cluster:
  workers: 16
  device: {{name: h100, precision: bf16}}
  nodes:
    - {{type: dgx_h100, count: 2}}
topology: {{kind: hierarchical, fabric: rail, arity: 8, nic: per_device, link: {{bandwidth: 400Gbps, latency: 2us}}}}
model: {{kind: "profile:gpt", blocks: 2, hidden_size: 512, heads: 8, experts: 16, top_k: 2, sequence_length: 256}}
training:
  parallelism: {}
  batch: {{per_worker: 2}}
  optimizer: {{kind: adam, learning_rate: 0.0001}}
  stop: {{iterations: 1}}
sweep:
  axes:
    {}
)",
                                     parallelism, axis);
  const auto out = folder / "out";
  const CommandResult run = run_dtsim("run " + path.string() + " -q -o " + out.string());
  EXPECT_EQ(run.exit_status, 0) << run.err;
  return out;
}

// DeepEP's dispatcher (training.token_dispatcher: deepep) on 2 machines of 8 devices, 16 experts a token's 2 of
// them: each token crosses to the other machine once if one of its experts is there (1 - C(8,2)/C(16,2) of
// them), then every device forwards the copies it holds to their experts' devices inside its machine. Against
// the all-to-all (every copy to its expert's device: 15/16 of a device's copies): more bytes in all, fewer
// through the NICs.
TEST(MixtureOfExperts, TheDeepEpDispatcherSendsEachTokenOnceToEachMachine) {
  const auto out = run_two_node_mixture(fresh_output_folder("deepep-dispatcher"), "{expert: 16}",
                                        "training.token_dispatcher: [all_to_all, deepep]");
  const nlohmann::json plain = summary_of(out / "token_dispatcher=all_to_all")["result"];
  const nlohmann::json deepep = summary_of(out / "token_dispatcher=deepep")["result"];
  // Per device and exchange, in tokens: across 1 x reach, inside 7 x 2 / 8; against 15 x 2 / 16.
  const double reach = 1.0 - (8.0 * 7 / 2) / (16.0 * 15 / 2);
  const double ratio = (reach + 7.0 * 2 / 8) / (15.0 * 2 / 16);
  const double sent = deepep["experts"]["per_all_to_all"]["bytes_sent"].get<double>();
  const double sent_plain = plain["experts"]["per_all_to_all"]["bytes_sent"].get<double>();
  EXPECT_NEAR(sent / sent_plain, ratio, 1e-3 * ratio);
  EXPECT_LT(deepep["bytes_by_link_class"]["nic"].get<double>(), plain["bytes_by_link_class"]["nic"].get<double>());
}

// Megatron-Core's allgather dispatcher (training.token_dispatcher: all_gather) on the same 2 machines, expert 16: every
// device gathers the group's tokens and the outputs are reduce-scattered back, (e - 1) x a device's 512 tokens of 512
// BF16 values each way (a ring or direct gather sends (p - 1) / p of the gathered block), where the all-to-all sends
// its 2 copies of each, 15/16 of them away: e / top_k = 8 times the bytes. The routing does not move them: skewed,
// the gathers send as much.
TEST(MixtureOfExperts, TheAllGatherDispatcherSendsEveryTokenToEveryDevice) {
  const auto out = run_two_node_mixture(fresh_output_folder("allgather-dispatcher"), "{expert: 16}",
                                        "training.token_dispatcher: [all_to_all, all_gather]\n    "
                                        "training.routing.distribution: [uniform, zipf]");
  const auto sent = [&out](const std::string& point) {
    return summary_of(out / point)["result"]["experts"]["per_all_to_all"]["bytes_sent"].get<double>();
  };
  const std::string even = "token_dispatcher=all_gather,distribution=uniform";
  EXPECT_DOUBLE_EQ(sent(even), 15.0 * 512 * 512 * 2);
  EXPECT_DOUBLE_EQ(sent(even) / sent("token_dispatcher=all_to_all,distribution=uniform"), 8.0);
  EXPECT_DOUBLE_EQ(sent("token_dispatcher=all_gather,distribution=zipf"), sent(even));
}

/// Expert 8 over one node's ranks against expert 16 over both: each all-to-all sends `tokens` a device, 2 copies each
/// of 512 BF16 values, (e - 1) / e of them away; each of expert 8's devices holds one GELU expert a block more (512 x
/// 2048 + 2048 + 2048 x 512 + 512 BF16 parameters, over 2 blocks).
void expect_folded_groups(const nlohmann::json& inside, const nlohmann::json& folded, double tokens) {
  for (const auto& [result, experts] : {std::pair{&inside, 8.0}, std::pair{&folded, 16.0}}) {
    EXPECT_DOUBLE_EQ((*result)["experts"]["per_all_to_all"]["bytes_sent"].get<double>(),
                     tokens * 2 * 512 * 2 * (experts - 1) / experts);
  }
  const double expert = 512.0 * 2048 + 2048 + 2048.0 * 512 + 512;
  EXPECT_DOUBLE_EQ(inside["memory"][0]["parameters_bytes"].get<double>() -
                       folded["memory"][0]["parameters_bytes"].get<double>(),
                   2 * expert * 2);
}

// Megatron-Core's parallel folding: on the experts' own grid (expert_tensor declared) an expert group is laid over a
// stage's tensor x data devices, so that its degree may exceed the data-parallel one. Tensor 2 x data 8 on two DGX
// H100 nodes: expert 8 is one node's 8 consecutive ranks (tensor pairs of 4 replicas), expert 16 both nodes' (refused
// while the expert groups were carved out of the 8 replicas). Each tensor rank dispatches its own half of the
// replica's tokens; a device of expert 16 holds one expert of each block where expert 8's hold two.
TEST(MixtureOfExperts, AnExpertGroupFoldedOverTensorAndDataExceedsTheDataDegree) {
  const auto out = run_two_node_mixture(fresh_output_folder("folded-experts"),
                                        "{tensor: 2, sequence_parallel: true, expert: 8, expert_tensor: 1}",
                                        "training.parallelism.expert: [8, 16]");
  const nlohmann::json inside = summary_of(out / "expert=8")["result"];
  const nlohmann::json folded = summary_of(out / "expert=16")["result"];
  // A tensor rank's 256 tokens (half of 2 sequences of 256); one expert a block fewer on expert 16's devices.
  expect_folded_groups(inside, folded, 256.0);
  // NVLink inside a node; the folded group's exchanges cross the fabric.
  EXPECT_GT(folded["experts"]["per_all_to_all"]["communication_s"].get<double>(),
            2 * inside["experts"]["per_all_to_all"]["communication_s"].get<double>());
}

// Folded over a context group too (Megatron-Core's "tp-cp-ep-dp-pp"): tensor 2 x context 2 x data 4 on two DGX H100
// nodes, expert 8 over a node's ranks or 16 over both. Each device dispatches its own quarter of a replica's tokens:
// its tensor rank's half of its context rank's two chunks of each sequence.
TEST(MixtureOfExperts, AnExpertGroupFoldedOverContextDispatchesAContextRanksTokens) {
  const auto out = run_two_node_mixture(fresh_output_folder("folded-over-context"),
                                        "{tensor: 2, sequence_parallel: true, context: 2, expert: 8, expert_tensor: 1}",
                                        "training.parallelism.expert: [8, 16]");
  const nlohmann::json inside = summary_of(out / "expert=8")["result"];
  const nlohmann::json folded = summary_of(out / "expert=16")["result"];
  // 2 sequences of 256 over 2 x 2 devices: 128 tokens. Expert 16 fills the stage: its experts' gradients are reduced
  // by no group, expert 8's over the 2 devices holding the same experts, each of which holds one expert a block more.
  expect_folded_groups(inside, folded, 128.0);
}

}  // namespace
}  // namespace dtsim::testing
