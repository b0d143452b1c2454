// Expert parallelism against its closed forms: per mixture block and micro-batch, an expert group of g ranks
// exchanges each rank's routed tokens four times (dispatch and combine forward, their gradients backward),
// each all-to-all sending (g-1)/g x tokens x top_k x hidden x bytes away; on an uncontended full mesh each
// takes the direct all-to-all's alpha + m/B, m the piece for one peer. Counted from the messages the run sent.

#include "models/expert_routing.hpp"
#include "sim/runtime/context/training_context.hpp"
#include "tests/sim/simulated_run.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace dtsim {
namespace {

constexpr int kBlocks = 2;
constexpr int kHidden = 64;
constexpr int kSequence = 32;
constexpr int kTopK = 2;
constexpr int kMicrobatches = 2;
constexpr int kSamples = 4;  // per micro-batch
constexpr int kIterations = 2;

testing::SimulatedRun simulate_experts(int workers, int expert, const std::string& recomputation = "none",
                                       const std::string& extra = "") {
  return testing::simulate_text(
      fmt::format(R"(name: experts
cluster: {{workers: {}, device: {{peak_flops: "100TFLOPS", memory: "1TB"}}}}
topology: {{kind: mesh, link: {{bandwidth: "100Gbps", latency: "5us"}}, network_model: analytical}}
model: {{kind: "profile:gpt", blocks: {}, hidden_size: {}, heads: 4, vocabulary: 512, sequence_length: {},
         experts: 8, top_k: {}}}
training:
  parallelism: {{expert: {}, microbatches: {}}}
  {}
  recomputation: {}
  batch: {{per_worker: {}}}
  optimizer: {{kind: sgd, learning_rate: 0.1}}
  stop: {{iterations: {}}}
)",
                  workers, kBlocks, kHidden, kSequence, kTopK, expert, kMicrobatches, extra, recomputation,
                  kSamples * kMicrobatches, kIterations),
      "experts.yaml");
}

/// (g-1)/g of a micro-batch's routed copies of the hidden state, at 4 bytes (fp32 device, timing only).
double closed_form_bytes(int group) {
  const double routed = static_cast<double>(kSamples) * kSequence * kTopK * kHidden * 4.0;
  return routed * (group - 1) / group;
}

class ExpertGroups : public ::testing::TestWithParam<int> {};

TEST_P(ExpertGroups, EachRankSendsTheClosedFormBytesOfEveryAllToAll) {
  const int expert = GetParam();
  const testing::SimulatedRun run = simulate_experts(4, expert);
  const std::int64_t all_to_alls = std::int64_t{4} * kBlocks * kMicrobatches * kIterations;
  ASSERT_EQ(run.record.all_to_alls.size(), 4U);
  for (std::size_t rank = 0; rank < 4; ++rank) {
    const metrics::HostActivity& host = run.record.hosts[rank];
    EXPECT_EQ(run.record.all_to_alls[rank], all_to_alls);
    EXPECT_DOUBLE_EQ(host.expert_bytes_sent, static_cast<double>(all_to_alls) * closed_form_bytes(expert)) << rank;
    // The direct algorithm: one message to each other rank of the group.
    EXPECT_EQ(host.expert_messages_sent, all_to_alls * (expert - 1)) << rank;
    EXPECT_GT(host.expert_communication_s, 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Degrees, ExpertGroups, ::testing::Values(2, 4));

// Full recomputation runs each block's forward pass again before its backward pass, its exchanges with it.
TEST(ExpertParallelism, FullRecomputationExchangesTheTokensAgain) {
  const testing::SimulatedRun run = simulate_experts(4, 4, "full");
  const std::int64_t all_to_alls = std::int64_t{6} * kBlocks * kMicrobatches * kIterations;
  EXPECT_EQ(run.record.all_to_alls[0], all_to_alls);
  EXPECT_DOUBLE_EQ(run.record.hosts[0].expert_bytes_sent, static_cast<double>(all_to_alls) * closed_form_bytes(4));
}

// Every all-to-all of a 4-rank group on the full mesh: the four ranks reach it together (they compute alike),
// and each of its 3 messages has its own link: alpha + m/B.
TEST(ExpertParallelism, AnAllToAllTakesTheDirectClosedFormOnAFullMesh) {
  const testing::SimulatedRun run = simulate_experts(4, 4);
  const metrics::HostActivity& host = run.record.hosts[0];
  const double piece = closed_form_bytes(4) / 3.0;
  const double predicted = 5e-6 + piece / (100e9 / 8.0);
  EXPECT_NEAR(host.expert_communication_s / static_cast<double>(run.record.all_to_alls[0]), predicted,
              1e-9 * predicted);
}

// The experts' gradients are reduced over the replicas holding the same experts, the dense ones over every
// replica: with expert 2 of data 4, each rank's ring allreduces move 2 (4-1)/4 of the dense gradients and
// 2 (2-1)/2 of its experts' half.
TEST(ExpertParallelism, ExpertGradientsAreReducedOverTheirOwnReplicas) {
  const testing::SimulatedRun run = simulate_experts(4, 2);
  const models::ModelProfile& profile = run.setup.profile();
  double experts = 0.0;
  for (const models::LayerProfile& layer : profile.layers) experts += layer.routed() ? layer.parameters : 0.0;
  const double dense = profile.parameters() - experts;
  const metrics::HostActivity& host = run.record.hosts[0];
  const double gradients = host.bytes_sent - host.expert_bytes_sent;
  const double expected = kIterations * 4.0 * (2.0 * 3.0 / 4.0 * dense + 2.0 * 1.0 / 2.0 * experts / 2.0);
  EXPECT_NEAR(gradients, expected, 4.0 * kIterations * 16.0) << "within the padding of the ring's chunks";
}

// Zipf routing: every draw (micro-batch, block) sends each device the copies routed to its experts, and the
// experts' outputs back from it: toward the experts rank i sends rank j its share T x load_j / g, back it
// sends every other rank T x load_i / g (dispatch and combine forward, their gradients backward). Counted from
// the messages against the draws; the busiest device computes its experts' products load times over.
TEST(ExpertParallelism, UnevenRoutingSendsEachDeviceTheTokensItsExpertsDrew) {
  models::RoutingSpec zipf;
  zipf.distribution = models::RoutingDistribution::Zipf;
  zipf.exponent = 1.5;
  const testing::SimulatedRun run = simulate_experts(4, 4, "none", "routing: {distribution: zipf, exponent: 1.5}");
  const double values = static_cast<double>(kSamples) * kSequence * kTopK * kHidden;
  const auto piece = [&](double load) { return 4.0 * runtime::wire_elements(values * load / 4.0, 4, 1); };
  std::vector<double> expected(4, 0.0);
  for (std::int64_t iteration = 1; iteration <= kIterations; ++iteration) {
    for (int microbatch = 0; microbatch < kMicrobatches; ++microbatch) {
      for (int block = 0; block < kBlocks; ++block) {
        const std::vector<double> loads =
            models::draw_routing(zipf, 8, kTopK, run.scenario.seed, {iteration, microbatch, block, 0}).rank_loads(4);
        for (std::size_t i = 0; i < 4; ++i) {
          for (std::size_t j = 0; j < 4; ++j) {
            if (j != i) expected[i] += 2.0 * (piece(loads[j]) + piece(loads[i]));
          }
        }
      }
    }
  }
  ASSERT_TRUE(run.record.routing.has_value());
  for (std::size_t rank = 0; rank < 4; ++rank) {
    EXPECT_DOUBLE_EQ(run.record.hosts[rank].expert_bytes_sent, expected[rank]) << rank;
  }
  // 8 experts over 4 devices: the busiest holds two of the draw's shares.
  EXPECT_GT(run.record.routing->mean_max_load, 1.2);
  EXPECT_EQ(run.record.routing->dropped_tokens, 0.0);
}

// A capacity of 1 drops what the experts over their even share drew; the record counts them.
TEST(ExpertParallelism, ACapacityDropsTheTokensBeyondIt) {
  const testing::SimulatedRun run =
      simulate_experts(4, 4, "none", "routing: {distribution: dirichlet, alpha: 0.5, capacity_factor: 1.0}");
  ASSERT_TRUE(run.record.routing.has_value());
  const metrics::RoutingRecord& routing = *run.record.routing;
  EXPECT_DOUBLE_EQ(routing.routed_tokens,
                   static_cast<double>(kIterations) * kMicrobatches * kBlocks * 4 * kSamples * kSequence * kTopK);
  models::RoutingSpec spec;
  spec.distribution = models::RoutingDistribution::Dirichlet;
  spec.alpha = 0.5;
  spec.capacity_factor = 1.0;
  double dropped = 0.0;
  for (std::int64_t iteration = 1; iteration <= kIterations; ++iteration) {
    for (int microbatch = 0; microbatch < kMicrobatches; ++microbatch) {
      for (int block = 0; block < kBlocks; ++block) {
        const models::RoutingDraw draw =
            models::draw_routing(spec, 8, kTopK, run.scenario.seed, {iteration, microbatch, block, 0});
        dropped += draw.dropped() * 4 * kSamples * kSequence * kTopK;
        // No device takes more than its even share under a capacity of 1.
        for (const double load : draw.rank_loads(4)) EXPECT_LE(load, 1.0 + 1e-12);
      }
    }
  }
  EXPECT_GT(routing.dropped_tokens, 0.0);
  EXPECT_NEAR(routing.dropped_tokens, dropped, 1e-9 * dropped);
  // The busiest device's work is at most even routing's under a capacity of 1, however far above the mean of the
  // kept loads it lies (the tokens dropped lower the mean).
  EXPECT_LE(routing.busiest_work, 1.0 + 1e-12);
  EXPECT_LE(routing.mean_max_work, routing.busiest_work);
  EXPECT_GE(routing.busiest_load, routing.busiest_work);
  ASSERT_EQ(routing.tokens_per_expert.size(), 8U);
  EXPECT_TRUE(std::is_sorted(routing.tokens_per_expert.rbegin(), routing.tokens_per_expert.rend()));
}

}  // namespace
}  // namespace dtsim
