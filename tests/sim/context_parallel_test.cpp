// Context parallelism against its closed forms: a context group of c devices each holds 1/c of every
// sequence; per attention layer and micro-batch the ring sends each device's block of keys and values c - 1
// times forward and, with their gradients, c - 1 times backward at twice the bytes; the all-gather variant
// allgathers and reduce-scatters the blocks instead. With compute negligible the ring's exposed time is its
// transfers' (alpha + m/B each on a full mesh); with transfers negligible, none is exposed.

#include "tests/sim/simulated_run.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace dtsim::context_parallel_test {
namespace {

constexpr int kBlocks = 2;
constexpr int kHidden = 64;
constexpr int kSequence = 64;
constexpr int kMicrobatches = 2;
constexpr int kSamples = 2;  // per micro-batch
constexpr int kIterations = 2;

testing::SimulatedRun simulate_context(int context, const std::string& attention, const std::string& device,
                                       const std::string& link) {
  return testing::simulate_text(
      fmt::format(R"(name: context
cluster: {{workers: {}, device: {}}}
topology: {{kind: mesh, link: {}, network_model: analytical}}
model: {{kind: "profile:gpt", blocks: {}, hidden_size: {}, heads: 4, vocabulary: 512, sequence_length: {},
         attention: fused}}
training:
  parallelism: {{context: {}, context_attention: {}, microbatches: {}}}
  batch: {{per_worker: {}}}
  optimizer: {{kind: sgd, learning_rate: 0.1}}
  stop: {{iterations: {}}}
)",
                  context, device, link, kBlocks, kHidden, kSequence, context, attention, kMicrobatches,
                  kSamples * kMicrobatches, kIterations),
      "context.yaml");
}

constexpr const char* kDevice = R"({peak_flops: "100TFLOPS", memory: "1TB"})";
constexpr const char* kLink = R"({bandwidth: "100Gbps", latency: "5us"})";

/// One device's block of keys and values for a micro-batch: its s/c tokens' keys and values (2 x hidden
/// each), at 4 bytes (fp32 device, timing only).
double block_bytes(int context) { return static_cast<double>(kSamples) * kSequence / context * 2.0 * kHidden * 4.0; }

/// Attention layers a device passes over the run, forward (and as many backward).
constexpr double kPasses = static_cast<double>(kBlocks) * kMicrobatches * kIterations;

class ContextRing : public ::testing::TestWithParam<int> {};

TEST_P(ContextRing, SendsEachBlockAroundTheGroupForwardAndWithItsGradientBackward) {
  const int c = GetParam();
  const testing::SimulatedRun run = simulate_context(c, "ring", kDevice, kLink);
  for (std::size_t rank = 0; rank < static_cast<std::size_t>(c); ++rank) {
    EXPECT_DOUBLE_EQ(run.record.hosts[rank].context_bytes_sent, kPasses * (c - 1) * 3.0 * block_bytes(c)) << rank;
  }
}

INSTANTIATE_TEST_SUITE_P(Degrees, ContextRing, ::testing::Values(2, 4));

TEST(ContextParallelism, TheAllGatherVariantGathersAndReduceScattersTheBlocks) {
  const testing::SimulatedRun run = simulate_context(4, "all_gather", kDevice, kLink);
  // A ring allgather and a ring reduce-scatter of c blocks: each device sends c - 1 blocks in each.
  EXPECT_DOUBLE_EQ(run.record.hosts[0].context_bytes_sent, kPasses * 3.0 * 2.0 * block_bytes(4));
  EXPECT_GT(run.record.hosts[0].context_communication_s, 0.0) << "neither is beside compute";
}

// Two devices, compute negligible: every transfer is exposed, forward alpha + m/B, backward alpha + 2m/B.
TEST(ContextParallelism, WithoutComputeTheRingExposesEveryTransfer) {
  const testing::SimulatedRun run = simulate_context(2, "ring", R"({peak_flops: "1000000000TFLOPS", memory: "1TB"})", kLink);
  const double forward = 5e-6 + block_bytes(2) / (100e9 / 8.0);
  const double backward = 5e-6 + 2.0 * block_bytes(2) / (100e9 / 8.0);
  const double exposed = kPasses * (forward + backward);
  EXPECT_NEAR(run.record.hosts[0].context_communication_s, exposed, 1e-3 * exposed);
}

// Transfers negligible beside the blocks of attention: none is exposed, every byte still sent.
TEST(ContextParallelism, BesideLongerComputeNoTransferIsExposed) {
  const testing::SimulatedRun run =
      simulate_context(2, "ring", kDevice, R"({bandwidth: "1000000Tbps", latency: "0s"})");
  EXPECT_EQ(run.record.hosts[0].context_communication_s, 0.0);
  EXPECT_DOUBLE_EQ(run.record.hosts[0].context_bytes_sent, kPasses * 3.0 * block_bytes(2));
}

}  // namespace
}  // namespace dtsim::context_parallel_test
