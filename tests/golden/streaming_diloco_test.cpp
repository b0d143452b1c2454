// Streaming DiLoCo across two datacenters: one fragment without overlap is DiLoCo to the bit; fragments carry
// the same bytes over the wide area in turn, 4-bit floats an eighth of them; an overlapped exchange costs the
// inner steps only what they did not hide, as its closed form says.

#include "datacenter_scenarios.hpp"
#include "run_dtsim.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace dtsim::testing {
namespace {

double wan_bytes_of(const nlohmann::json& result) { return result["bytes_by_link_class"]["wan"].get<double>(); }

TEST(StreamingDilocoRuns, OneFragmentWithoutOverlapIsDilocoToTheBit) {
  const std::filesystem::path folder = fresh_output_folder("streaming-diloco-one-fragment");
  const std::string one_fragment =
      "{strategy: streaming_diloco, inner_steps: 4, fragments: 1, overlap_steps: 0, mixing: 0, "
      "outer_learning_rate: 0.7}";
  // Trained for real: the same losses, the same bytes.
  const nlohmann::json diloco = run_result(folder, "diloco", two_sites("{strategy: diloco, inner_steps: 4}"));
  const nlohmann::json streaming = run_result(folder, "streaming", two_sites(one_fragment));
  EXPECT_EQ(streaming["final"]["val_loss"], diloco["final"]["val_loss"]);
  EXPECT_EQ(streaming["final"]["train_loss"], diloco["final"]["train_loss"]);
  EXPECT_EQ(streaming["bytes_by_link_class"], diloco["bytes_by_link_class"]);
  // The outer step's operations are charged in two parts (the difference before the exchange): the same time
  // up to the sum's rounding.
  EXPECT_NEAR(streaming["simulated_s"].get<double>(), diloco["simulated_s"].get<double>(), 1e-9);
  // A timing-only profile: the same clock and bytes.
  const nlohmann::json timed_diloco =
      run_result(folder, "timed-diloco", gpt2_two_sites("{strategy: diloco, inner_steps: 4}", 8));
  const nlohmann::json timed_streaming = run_result(folder, "timed-streaming", gpt2_two_sites(one_fragment, 8));
  EXPECT_NEAR(timed_streaming["simulated_s"].get<double>(), timed_diloco["simulated_s"].get<double>(), 1e-9);
  EXPECT_EQ(timed_streaming["bytes_by_link_class"], timed_diloco["bytes_by_link_class"]);
}

TEST(StreamingDilocoRuns, FragmentsCrossInTurnAndFourBitFloatsCarryAnEighthOfTheBytes) {
  const std::filesystem::path folder = fresh_output_folder("streaming-diloco-bytes");
  const nlohmann::json diloco = run_result(folder, "diloco", two_sites("{strategy: diloco, inner_steps: 4}"));
  // 24 steps, H = 4, four fragments at offsets 0 to 3: each exchanged 6 times (the last three once more at the
  // end), as DiLoCo's 6 outer steps; each exchange a quarter of the model.
  const nlohmann::json fragments =
      run_result(folder, "fragments",
                 two_sites("{strategy: streaming_diloco, inner_steps: 4, fragments: 4, outer_precision: fp32}"));
  EXPECT_NEAR(wan_bytes_of(fragments) / wan_bytes_of(diloco), 1.0, 0.01);
  const nlohmann::json fp4 = run_result(
      folder, "fp4", two_sites("{strategy: streaming_diloco, inner_steps: 4, fragments: 4, outer_precision: fp4}"));
  // 4 bits a value: an eighth, a little more where a fragment's 434 or 435 values are padded to 56 elements of 4
  // bytes (a multiple of the 8 workers).
  const double ratio = wan_bytes_of(fragments) / wan_bytes_of(fp4);
  EXPECT_GT(ratio, 7.5);
  EXPECT_LE(ratio, 8.0);
  // Rounded to E3M0, the outer gradients still train: the loss falls, if less far than in 32 bits.
  EXPECT_LT(fp4["final"]["val_loss"].get<double>(), 0.8 * fp4["initial"]["val_loss"].get<double>());
  EXPECT_GT(fp4["final"]["val_loss"].get<double>(), fragments["final"]["val_loss"].get<double>());
}

TEST(StreamingDilocoRuns, AnOverlappedExchangeCostsOnlyWhatTheInnerStepsDidNotHide) {
  const std::filesystem::path folder = fresh_output_folder("streaming-diloco-overlap");
  // GPT-2 small, timing only, 16 A100s in two sites 10 Gb/s and 40 ms apart; 40 steps, H = 10, four fragments
  // (offsets 0, 2, 5, 7), each merged one inner step after it is sent. Fragment 0 is sent at 10, 20, 30 and 40,
  // the others at 12 to 37: 12 exchanges each hidden behind one inner step, then fragment 0's exchange at 40
  // merged at the end and the three others sent once more at the end, 4 with nothing to hide behind.
  const nlohmann::json run =
      run_result(folder, "overlap",
                 gpt2_two_sites("{strategy: streaming_diloco, inner_steps: 10, fragments: 4, overlap_steps: 1}", 40));
  const double parameters = run["parameters"].get<double>();
  const double step_s = run["sites"][0]["compute_s"].get<double>() / 40.0;
  // A fragment's ring over the 16 ranks crosses the wide area one direction at a time: 2 (p - 1) steps, each a
  // chunk of a quarter of the BF16 parameters over 16 ranks, behind the path's latencies.
  const double chunk_bytes = parameters / 4.0 * 2.0 / 16.0;
  const double exchange_s = 2.0 * 15.0 * (2e-6 + 40e-3 + 2e-6 + chunk_bytes / 1.25e9);
  const double closed_form = 40.0 * step_s + 12.0 * (exchange_s - step_s) + 4.0 * exchange_s;
  EXPECT_NEAR(run["simulated_s"].get<double>() / closed_form, 1.0, 1e-3)
      << run["simulated_s"].get<double>() << " s against " << closed_form << " s";
  // Without overlap every exchange blocks.
  const nlohmann::json blocking =
      run_result(folder, "blocking",
                 gpt2_two_sites("{strategy: streaming_diloco, inner_steps: 10, fragments: 4, overlap_steps: 0}", 40));
  EXPECT_NEAR(blocking["simulated_s"].get<double>() - run["simulated_s"].get<double>(), 12.0 * step_s, 1e-3);
}

/// Streaming DiLoCo's 10B row (scenarios/datacenters/streaming-10b-bandwidth.yaml): two replicas, a 48-block
/// model, under `sync` for `iterations` steps.
std::string ten_billion(const std::string& sync, int iterations) {
  return fmt::format(R"(name: ten-billion
cluster:
  workers: 2
  device: {{name: replica, peak_flops: "2198TFLOPS", half_flops: "2198TFLOPS", precision: bf16, efficiency: 0.6,
           memory_bandwidth: "1000TB/s", memory: "100TiB"}}
topology:
  kind: sites
  link: {{bandwidth: "400Gbps", latency: "2us"}}
  sites: [{{name: a, workers: 1}}, {{name: b, workers: 1}}]
  wan: {{bandwidth: "1.4Gbps", latency: "1us"}}
model: {{kind: "profile:gpt", blocks: 48, hidden_size: 4096, heads: 32, sequence_length: 2048}}
training:
  batch: {{per_worker: 8}}
  check_memory: false
  communication_precision: {{gradients: bf16}}
  optimizer: {{kind: adam, learning_rate: 0.0001}}
  sync: {}
  architecture: {{kind: allreduce, algorithm: ring}}
  stop: {{iterations: {}}}
)",
                     sync, iterations);
}

TEST(StreamingDilocoRuns, TheWideAreaCarriesFourHundredTimesFewerBitsThanDataParallel) {
  // Streaming DiLoCo's table 1: "400x fewer bits" than data parallelism (BF16 gradients every step) at H = 100
  // with 4-bit outer gradients: 100 x 16 / 4. DiLoCo's own reduction is H (its paper's "500 times less
  // communication" at H = 500).
  const std::filesystem::path folder = fresh_output_folder("streaming-diloco-fewer-bits");
  const auto per_step = [&](const std::string& name, const std::string& sync, int iterations) {
    return wan_bytes_of(run_result(folder, name, ten_billion(sync, iterations))) / iterations;
  };
  const double data_parallel = per_step("bsp", "{strategy: bsp}", 3);
  const double diloco = per_step("diloco", "{strategy: diloco, inner_steps: 100}", 300);
  const double streaming = per_step(
      "fp4", "{strategy: streaming_diloco, inner_steps: 100, fragments: 16, overlap_steps: 1, outer_precision: fp4}", 300);
  EXPECT_NEAR(data_parallel / diloco, 100.0, 1e-9);
  EXPECT_NEAR(data_parallel / streaming, 400.0, 1e-9);
}

TEST(StreamingDilocoRuns, IntellectOnesOuterAllReduceIsARingAcrossItsNodesInEightBits) {
  // scenarios/datacenters/intellect-1.yaml for one outer step, at both ends of its bandwidths: 14 nodes of 8 H100s,
  // DiLoCo's outer gradient of 10,211,381,248 parameters all-reduced over the wide area by the hierarchical
  // allreduce, whose ring across the nodes sends 2 x 13 / 14 of the model from each node, one byte a value (int8).
  const std::filesystem::path folder = fresh_output_folder("streaming-diloco-intellect-1");
  std::ofstream(folder / "one-step.yaml") << fmt::format(
      "include: {}\ntraining: {{stop: {{iterations: 100}}}}\nsweep: {{axes: {{topology.wan.bandwidth: [\"0.5Gbps\", "
      "\"4Gbps\"]}}}}\n",
      scenario_path("datacenters/intellect-1.yaml").string());
  const CommandResult run =
      run_dtsim(fmt::format("run {} -o {} -q", (folder / "one-step.yaml").string(), (folder / "out").string()));
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto result = [&](const std::string& bandwidth) {
    return nlohmann::json::parse(read_file(folder / "out" / ("bandwidth=" + bandwidth) / "summary.json"))["result"];
  };
  const nlohmann::json slow = result("0.5Gbps");
  const nlohmann::json fast = result("4Gbps");
  const double parameters = slow["parameters"].get<double>();
  EXPECT_EQ(parameters, 10'211'381'248.0);
  const double ring_bytes = 2.0 * 13.0 / 14.0 * parameters;
  EXPECT_NEAR(wan_bytes_of(slow) / (14.0 * ring_bytes), 1.0, 1e-6);
  EXPECT_EQ(wan_bytes_of(slow), wan_bytes_of(fast));
  // Only the wide-area transfers differ between the bandwidths: the outer step's ring, at 0.5 and 4 Gbit/s.
  const double saved_s = ring_bytes * 8.0 * (1.0 / 0.5e9 - 1.0 / 4e9);
  EXPECT_NEAR((slow["simulated_s"].get<double>() - fast["simulated_s"].get<double>()) / saved_s, 1.0, 1e-6);
  EXPECT_NEAR(slow["sites"][0]["compute_s"].get<double>(), fast["sites"][0]["compute_s"].get<double>(), 1e-9);
}

TEST(StreamingDilocoRuns, ItsSettingsAreChecked) {
  const std::filesystem::path folder = fresh_output_folder("streaming-diloco-refused");
  const auto refusal = [&](const std::string& name, const std::string& sync) {
    std::ofstream(folder / (name + ".yaml")) << two_sites(sync);
    const CommandResult result = run_dtsim(fmt::format("validate {}", (folder / (name + ".yaml")).string()));
    EXPECT_EQ(result.exit_status, 2) << result.err;
    return result.err;
  };
  EXPECT_NE(refusal("many", "{strategy: streaming_diloco, inner_steps: 4, fragments: 5}")
                .find("training.sync.fragments: 5 fragments cannot each take its own step among 4 inner steps\n"
                      "  hint: use at most inner_steps fragments"),
            std::string::npos);
  EXPECT_NE(refusal("late", "{strategy: streaming_diloco, inner_steps: 4, fragments: 2, overlap_steps: 4}")
                .find("training.sync.overlap_steps: a fragment's exchange must come back before its next one: "
                      "overlap_steps 4 is not below inner_steps 4"),
            std::string::npos);
  EXPECT_NE(refusal("bare", "{strategy: streaming_diloco, inner_steps: 4}").find("fragments"), std::string::npos);
}

}  // namespace
}  // namespace dtsim::testing
