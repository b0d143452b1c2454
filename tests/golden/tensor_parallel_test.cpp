// Tensor parallelism against Megatron-LM's accounting (Shoeybi et al. 2019; Korthikanti et al. 2022): each
// transformer layer sums the hidden state (b x s x h values) over its tensor group twice forward and twice
// backward, counted here from the bytes dtsim's runs send; sequence parallelism moves the same bytes as
// reduce-scatters and allgathers and holds fewer activations; the placement puts tensor groups inside a node.

#include "run_dtsim.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

nlohmann::json tensor_result(const fs::path& folder) {
  return nlohmann::json::parse(read_file(folder / "summary.json"))["result"];
}

/// Runs the sweep `scenario` in a fresh folder `name`: where its points' result folders are.
fs::path run_sweep(const std::string& name, const std::string& scenario) {
  const auto folder = fresh_output_folder(name);
  const fs::path file = folder / (name + ".yaml");
  std::ofstream(file) << scenario;
  const CommandResult run = run_dtsim("run " + file.string() + " -q -o " + (folder / "out").string());
  EXPECT_EQ(run.exit_status, 0) << run.err;
  return folder / "out";
}

nlohmann::json point_summary(const fs::path& point) { return nlohmann::json::parse(read_file(point / "summary.json")); }

TEST(TensorParallel, FourSumsOfTheHiddenStatePerLayerAndMicrobatch) {
  const auto folder = fresh_output_folder("tensor_sums");
  const fs::path file = folder / "tensor.yaml";
  std::ofstream(file) << R"(name: tensor
cluster: {workers: 4, device: {name: a100, precision: mixed}}
topology: {kind: ring, link: {bandwidth: "200Gbps", latency: "2us"}}
model: {kind: "profile:gpt2_small"}
training:
  parallelism: {tensor: 4, microbatches: 2}
  batch: {per_worker: 4}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
sweep:
  axes:
    training.parallelism.sequence_parallel: [false, true]
    training.recomputation: [none, selective, full]
)";
  const CommandResult run = run_dtsim("run " + file.string() + " -q -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const double t = 4.0;
  const double layers = 12.0;
  const double microbatches = 2.0;
  // A micro-batch of 2 sequences of 1024 tokens, 768 wide, in 16 bits.
  const double hidden_bytes = 2.0 * 1024 * 768 * 2.0;
  for (const std::string sequence : {"sequence_parallel=false", "sequence_parallel=true"}) {
    for (const std::string recomputation : {"none", "selective", "full"}) {
      const std::string point = sequence + ",recomputation=" + recomputation;
      const nlohmann::json result = tensor_result(folder / "out" / point);
      // A ring allreduce sends 2 (t-1)/t of the block from each of the t devices; a reduce-scatter or an
      // allgather half that, twice as often. No data parallelism: nothing else is sent.
      const double sums = result["bytes_sent"].get<double>() / (t * 2.0 * (t - 1.0) / t * hidden_bytes);
      // 4 per layer, one for the token table (vocabulary-parallel) and one for the head, per micro-batch;
      // full recomputation runs each layer's forward pass again before its backward pass, and its 2 sums
      // with it (Korthikanti et al. 2022, section 5: 6 per layer); selective recomputation repeats no sum.
      const double per_layer = recomputation == "full" ? 6.0 : 4.0;
      EXPECT_NEAR(sums, (per_layer * layers + 2.0) * microbatches, 1e-9) << point;
    }
  }
  const double whole = tensor_result(folder / "out" / "sequence_parallel=false,recomputation=none")["memory"][0]
                           ["activations_bytes"].get<double>();
  const double split = tensor_result(folder / "out" / "sequence_parallel=true,recomputation=none")["memory"][0]
                           ["activations_bytes"].get<double>();
  EXPECT_LT(split, whole);
}

// A run with every kind of traffic (tensor, pipeline, data and ZeRO's gathers) reports each apart: in
// summary.json (they add up to communication_s), on stdout and on the trace's communication spans.
TEST(TensorParallel, CommunicationIsReportedByWhatItCarries) {
  const auto folder = fresh_output_folder("traffic_kinds");
  const fs::path file = folder / "kinds.yaml";
  std::ofstream(file) << R"(name: kinds
cluster: {workers: 16, device: {name: a100, precision: mixed}}
topology: {kind: ring, link: {bandwidth: "200Gbps", latency: "2us"}}
model: {kind: "profile:gpt2_small"}
training:
  parallelism: {tensor: 2, pipeline: 2, microbatches: 4, zero: 1}
  batch: {per_worker: 8}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 2}
outputs: {trace: true}
)";
  const CommandResult run = run_dtsim("run " + file.string() + " -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_NE(run.out.find("  carried    worker-0's communication: tensor-parallel sums "), std::string::npos) << run.out;
  const nlohmann::json summary = nlohmann::json::parse(read_file(folder / "out" / "summary.json"));
  for (const nlohmann::json& host : summary["hosts"]) {
    const nlohmann::json& kinds = host["communication_by_kind_s"];
    double total = 0.0;
    for (const char* kind : {"data", "tensor", "pipeline", "zero"}) {
      EXPECT_GT(kinds[kind].get<double>(), 0.0) << host["name"] << " " << kind;
      total += kinds[kind].get<double>();
    }
    EXPECT_NEAR(total, host["communication_s"].get<double>(), 1e-12 + 1e-9 * total) << host["name"];
    // The tensor group's sums dominate a GPT-2 split over 2 devices, as the issue's example said.
    EXPECT_GT(kinds["tensor"].get<double>(), kinds["data"].get<double>()) << host["name"];
  }
  std::map<std::string, int> carried;
  const nlohmann::json trace = nlohmann::json::parse(read_file(folder / "out" / "trace.json"));
  for (const nlohmann::json& event : trace["traceEvents"]) {
    if (event.value("name", "") == "communication") ++carried[event["args"]["carries"].get<std::string>()];
  }
  for (const char* kind : {"tensor-parallel sums", "pipeline activations", "data-parallel gradients", "ZeRO parameter gathers"}) {
    EXPECT_GT(carried[kind], 0) << kind;
  }
}

// Megatron-LM's --tp-comm-overlap (training.overlap_tensor_communication): under sequence parallelism the
// tensor group's gathers and reduce-scatters run beside the products. The same bytes move; the step is
// shorter, by no more than the tensor communication it had; that communication is reported as overlapped,
// and what the worker still waits for stays tensor communication, so that compute, communication and waiting
// never add up to more than the step.
TEST(TensorParallel, OverlappedTensorCommunicationMovesTheSameBytesAndHidesPartOfIt) {
  const fs::path out = run_sweep("tensor_overlap", R"(name: overlap
cluster: {workers: 4, device: {name: a100, precision: mixed}}
topology: {kind: ring, link: {bandwidth: "100Gbps", latency: "2us"}}
model: {kind: "profile:gpt2_small"}
training:
  parallelism: {tensor: 4, sequence_parallel: true, microbatches: 2}
  batch: {per_worker: 4}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 2}
outputs: {trace: true}
sweep:
  axes:
    training.overlap_tensor_communication: [false, true]
)");
  const nlohmann::json serial = point_summary(out / "overlap_tensor_communication=false");
  const nlohmann::json overlapped = point_summary(out / "overlap_tensor_communication=true");
  EXPECT_DOUBLE_EQ(overlapped["result"]["bytes_sent"].get<double>(), serial["result"]["bytes_sent"].get<double>());
  const double before = serial["result"]["simulated_s"].get<double>();
  const double after = overlapped["result"]["simulated_s"].get<double>();
  const double tensor_before = serial["hosts"][0]["communication_by_kind_s"]["tensor"].get<double>();
  EXPECT_LT(after, before);
  EXPECT_LE(before - after, tensor_before * (1.0 + 1e-9));
  for (const nlohmann::json& host : overlapped["hosts"]) {
    EXPECT_GT(host["overlapped_communication_s"].get<double>(), 0.0) << host["name"];
    EXPECT_LT(host["communication_by_kind_s"]["tensor"].get<double>(), tensor_before) << host["name"];
    const double accounted =
        host["compute_s"].get<double>() + host["communication_s"].get<double>() + host["wait_s"].get<double>();
    EXPECT_LE(accounted, after * (1.0 + 1e-9)) << host["name"];
  }
  // The trace shows the overlapped collectives on a lane of their own beside the main one.
  const nlohmann::json trace = nlohmann::json::parse(read_file(out / "overlap_tensor_communication=true" / "trace.json"));
  int overlapped_spans = 0;
  bool named = false;
  for (const nlohmann::json& event : trace["traceEvents"]) {
    if (event.value("name", "") == "overlapped communication" && event["tid"] == 2) ++overlapped_spans;
    if (event.value("name", "") == "thread_name" && event["tid"] == 2) {
      named = event["args"]["name"] == "tensor overlap";
    }
  }
  EXPECT_GT(overlapped_spans, 0);
  EXPECT_TRUE(named);
}

// While a collective's kernel runs beside a product it holds 16 of the device's multiprocessors (Transformer
// Engine's default for its pipelined and bulk overlaps, 1 for a ring exchange): the fewer the device has, the
// longer the products beside it take, by no more than that share of the collective's time.
TEST(TensorParallel, ACollectiveBesideAProductTakesItsMultiprocessors) {
  const fs::path out = run_sweep("tensor_overlap_sms", R"(name: sms
cluster: {workers: 4, device: {name: a100, precision: mixed}}
topology: {kind: ring, link: {bandwidth: "400Gbps", latency: "2us"}}
model: {kind: "profile:gpt2_medium"}
training:
  overlap_tensor_communication: true
  parallelism: {tensor: 4, sequence_parallel: true, microbatches: 2}
  batch: {per_worker: 8}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
sweep:
  axes:
    cluster.device.multiprocessors: [108, 32, 16]
)");
  const nlohmann::json many = point_summary(out / "multiprocessors=108");
  const nlohmann::json few = point_summary(out / "multiprocessors=32");
  EXPECT_DOUBLE_EQ(few["result"]["bytes_sent"].get<double>(), many["result"]["bytes_sent"].get<double>());
  const double slower = few["result"]["simulated_s"].get<double>() - many["result"]["simulated_s"].get<double>();
  EXPECT_GT(slower, 0.0);
  // Each product loses at most the share 16/32 of the collective's time beside it.
  const double collectives = few["hosts"][0]["overlapped_communication_s"].get<double>();
  EXPECT_LE(slower, 16.0 / 32.0 * collectives * (1.0 + 1e-9));
  // A collective that holds every multiprocessor stops the product beside it: slower still.
  const nlohmann::json none = point_summary(out / "multiprocessors=16");
  EXPECT_GT(none["result"]["simulated_s"].get<double>(), few["result"]["simulated_s"].get<double>());
}

// Two DGX A100 nodes, tensor groups of 8 and two replicas. By default a tensor group is a node, and only the
// replicas' gradient allreduce crosses the NICs; with data innermost, each tensor group spans both nodes
// (even ranks, or odd ones) and two hops of each ring cross, while the replicas share a node.
TEST(TensorParallel, TensorGroupsSitInsideANodeUnlessPlacedOtherwise) {
  const auto folder = fresh_output_folder("tensor_placement");
  const auto run_placed = [&](const std::string& name, const std::string& placement) {
    const fs::path file = folder / (name + ".yaml");
    std::ofstream(file) << R"(name: placement
cluster:
  workers: 16
  device: {name: a100, precision: mixed}
  nodes: [{type: dgx_a100, count: 2}]
topology: {kind: hierarchical, fabric: fat_tree, nic: per_device, link: {bandwidth: "200Gbps", latency: "2us"}}
model: {kind: "profile:gpt2_medium"}
training:
  parallelism: {tensor: 8, placement: )"
                        << placement << R"(}
  batch: {per_worker: 2}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
)";
    const CommandResult run = run_dtsim("run " + file.string() + " -q -o " + (folder / name).string());
    EXPECT_EQ(run.exit_status, 0) << run.err;
    return tensor_result(folder / name);
  };
  const nlohmann::json inside = run_placed("inside", "[tensor, pipeline, data]");
  const nlohmann::json across = run_placed("across", "[data, tensor, pipeline]");
  // A message that leaves a node crosses two NIC links, its sender's and its receiver's.
  const double gradient_bytes = inside["memory"][0]["gradients_bytes"].get<double>();
  // A ring allreduce of two ranks sends the whole block from each: the 16 devices' gradient shards.
  EXPECT_NEAR(inside["bytes_by_link_class"]["nic"].get<double>() / (2.0 * 16.0 * gradient_bytes), 1.0, 1e-6);
  // 24 layers x 4 sums + 2, each a ring of 8 in which a hop sends 2 x 7/8 of the hidden state (2 sequences
  // of 1024 tokens, 1024 wide, 16 bits); two groups, two crossing hops each.
  const double hop = 2.0 * 7.0 / 8.0 * (2.0 * 1024 * 1024 * 2.0);
  EXPECT_NEAR(across["bytes_by_link_class"]["nic"].get<double>() / (2.0 * 2.0 * 2.0 * 98.0 * hop), 1.0, 1e-6);
}

// A pipeline's replicas reduce each device's gradients during the passes that finish them (the last
// micro-batch's backward pass of each chunk), bucket by bucket: the same bytes, in less time.
TEST(PipelineOverlap, TheReplicasReduceDuringTheLastBackwardPass) {
  const auto folder = fresh_output_folder("pipeline_overlap");
  const fs::path file = folder / "overlap.yaml";
  std::ofstream(file) << R"(name: overlap
cluster: {workers: 8, device: {name: a100, precision: mixed}}
topology: {kind: ring, link: {bandwidth: "100Gbps", latency: "2us"}}
model: {kind: "profile:bert_base"}
training:
  parallelism: {pipeline: 2, tensor: 2, microbatches: 4}
  batch: {per_worker: 8}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 2}
sweep:
  axes:
    training.overlap: [false, true]
)";
  const CommandResult run = run_dtsim("run " + file.string() + " -q -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const nlohmann::json after = nlohmann::json::parse(read_file(folder / "out" / "overlap=false" / "summary.json"));
  const nlohmann::json during = nlohmann::json::parse(read_file(folder / "out" / "overlap=true" / "summary.json"));
  EXPECT_EQ(during["result"]["bytes_sent"], after["result"]["bytes_sent"]);
  EXPECT_LT(during["result"]["simulated_s"].get<double>(), after["result"]["simulated_s"].get<double>());
  EXPECT_GT(during["hosts"][0]["overlapped_communication_s"].get<double>(), 0.0);
  EXPECT_FALSE(after["hosts"][0].contains("overlapped_communication_s"));
}

}  // namespace
}  // namespace dtsim::testing
