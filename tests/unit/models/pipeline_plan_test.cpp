#include "models/pipeline_plan.hpp"

#include "models/stage_layout.hpp"

#include <gtest/gtest.h>

#include <array>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace dtsim::models {
namespace {

std::string text(const std::vector<PipelinePass>& passes) {
  std::string out;
  for (const PipelinePass& pass : passes) {
    out += std::string(pass.forward ? "F" : pass.weights ? "W" : "B") + std::to_string(pass.microbatch) +
           (pass.chunk > 0 ? "." + std::to_string(pass.chunk) : "") + " ";
  }
  return out;
}

TEST(PipelinePlan, OneForwardOneBackwardWarmsUpByTheStagesAfter) {
  EXPECT_EQ(text(pipeline_passes(PipelineSchedule::OneForwardOneBackward, 4, 0, 6)), "F0 F1 F2 F3 B0 F4 B1 F5 B2 B3 B4 B5 ");
  EXPECT_EQ(text(pipeline_passes(PipelineSchedule::OneForwardOneBackward, 4, 3, 6)), "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 ");
  EXPECT_EQ(text(pipeline_passes(PipelineSchedule::OneForwardOneBackward, 4, 1, 2)), "F0 F1 B0 B1 ");
  EXPECT_EQ(text(pipeline_passes(PipelineSchedule::GPipe, 4, 2, 3)), "F0 F1 F2 B0 B1 B2 ");
}

// 1F1B keeps at most p micro-batches of activations on the first stage (p - s on stage s); GPipe keeps m.
TEST(PipelinePlan, OneForwardOneBackwardHoldsAtMostTheStagesGPipeEveryMicrobatch) {
  for (const int p : {2, 4, 8}) {
    for (const int m : {4, 8, 32}) {
      for (int s = 0; s < p; ++s) {
        EXPECT_EQ(activations_in_flight(pipeline_passes(PipelineSchedule::GPipe, p, s, m)), m);
        EXPECT_EQ(activations_in_flight(pipeline_passes(PipelineSchedule::OneForwardOneBackward, p, s, m)),
                  std::min(p - s, m));
      }
    }
  }
}

TEST(PipelinePlan, StagesGetContiguousLayersOfNearlyEqualWork) {
  ModelProfile profile{"m", "", "", {}, {}};
  for (int i = 0; i < 8; ++i) profile.layers.push_back(whole_layer("l", 1.0, 1.0, 2.0, 4.0));
  EXPECT_EQ(split_into_stages(profile, 4), (std::vector<std::size_t>{0, 2, 4, 6, 8}));
  profile.layers[0].forward_flops = 20.0;  // one heavy layer takes a stage of its own
  EXPECT_EQ(split_into_stages(profile, 2), (std::vector<std::size_t>{0, 1, 8}));
  EXPECT_EQ(stage_profile(profile, 1, 3).layers.size(), 2U);
  EXPECT_THROW(static_cast<void>(split_into_stages(profile, 9)), std::invalid_argument);
}

/// A layer table of an embedding, `blocks` transformer blocks of two layers each, and a head and loss after them.
ModelProfile blocks_between(int blocks) {
  ModelProfile out{"m", "", "", {}, {}};
  out.layers.push_back(whole_layer("embedding", 1.0, 1.0, 2.0, 4.0));
  for (int b = 0; b < blocks; ++b) {
    for (const char* name : {"attention", "mlp"}) {
      out.layers.push_back(whole_layer(name, 1.0, 1.0, 2.0, 4.0));
      out.layers.back().block = b;
    }
  }
  out.layers.push_back(whole_layer("head", 1.0, 50.0, 100.0, 4.0));
  out.layers.push_back(whole_layer("loss", 0.0, 1.0, 1.0, 4.0));
  return out;
}

// Megatron-Core's even split gives each stage blocks / stages blocks, whatever the head costs; counting the
// embedding and the loss as a block each takes one from the first stage and one from the last (Llama 3.1 405B's 126
// blocks over 8 x 8 chunks: 1, 2, ..., 2, 1). By FLOPs the heavy head takes a stage nearly to itself.
TEST(PipelinePlan, AnEvenSplitGivesEveryStageAsManyBlocks) {
  const ModelProfile profile = blocks_between(6);  // layers: 0 embedding, 1-12 blocks, 13 head, 14 loss
  EXPECT_EQ(split_into_stages(profile, 3, StageSplit::even()), (std::vector<std::size_t>{0, 5, 9, 15}));
  EXPECT_EQ(split_into_stages(profile, 2), (std::vector<std::size_t>{0, 13, 15}));
  const StageSplit counted = StageSplit::even(true, true);
  EXPECT_EQ(split_into_stages(profile, 4, counted), (std::vector<std::size_t>{0, 3, 7, 11, 15}));
  EXPECT_THROW(static_cast<void>(split_into_stages(profile, 4, StageSplit::even())),
               std::invalid_argument);
  // 8 counted over 8: the first stage the embedding alone, the last the loss alone.
  EXPECT_EQ(split_into_stages(profile, 8, counted), (std::vector<std::size_t>{0, 1, 3, 5, 7, 9, 11, 13, 15}));
}

// A layout names each stage's blocks: DeepSeek-V3's "Et|(tt|)*30L" shape in small, the embedding with one block,
// then two a stage, the loss alone.
TEST(PipelinePlan, ALayoutGivesEachStageTheBlocksItNames) {
  const ModelProfile profile = blocks_between(5);  // layers: 0 embedding, 1-10 blocks, 11 head, 12 loss
  const StageLayout layout = read_stage_layout("Et|(tt|)*2L");
  ASSERT_EQ(layout.error, "");
  EXPECT_EQ(layout.blocks, (std::vector<int>{1, 2, 2, 0}));
  EXPECT_EQ(split_into_stages(profile, 4, StageSplit::layout(layout.blocks)),
            (std::vector<std::size_t>{0, 3, 7, 11, 13}));
  EXPECT_THROW(static_cast<void>(split_into_stages(profile, 3, StageSplit::layout({1, 2, 1}))),
               std::invalid_argument);
  ModelProfile blockless{"m", "", "", {}, {}};
  for (int i = 0; i < 3; ++i) blockless.layers.push_back(whole_layer("conv", 1.0, 1.0, 2.0, 4.0));
  EXPECT_THROW(static_cast<void>(split_into_stages(blockless, 2, StageSplit::layout({0, 0}))), std::invalid_argument);
  EXPECT_EQ(read_stage_layout("t*3|tt").blocks, (std::vector<int>{3, 2}));
  EXPECT_EQ(read_stage_layout("Et|tL|t").error, "the loss ('L') closes the last stage, and only there");
  EXPECT_EQ(read_stage_layout("tE|t").error, "the embedding ('E') opens the first stage, and only there");
  EXPECT_EQ(read_stage_layout("Et|tmL").error, "a multi-token prediction layer ('m'), which no layer table here has");
  EXPECT_EQ(read_stage_layout("(tt|t").error, "a '(' without its ')'");
  EXPECT_EQ(read_stage_layout("t*0").error, "a '*' without a count of 1 or more after it");
  EXPECT_EQ(read_stage_layout("t*99999999999999999999").error, "it spells out more than 1048576 layers");
  EXPECT_EQ(read_stage_layout("tx").error, "'x', which is none of E, t, L, |, ( ) and *");
}

// Megatron-LM's interleaved order: micro-batches in groups of p per chunk; the last device warms up with
// (v - 1) p forwards, the first with 2 (p - 1) more.
TEST(PipelinePlan, InterleavedRunsChunksInGroupsOfTheStages) {
  EXPECT_EQ(text(pipeline_passes(PipelineSchedule::Interleaved, 2, 1, 4, 2)),
            "F0 F1 F0.1 B0.1 F1.1 B1.1 F2 B0 F3 B1 F2.1 B2.1 F3.1 B3.1 B2 B3 ");
  for (const int d : {0, 1, 2, 3}) {
    const auto passes = pipeline_passes(PipelineSchedule::Interleaved, 4, d, 8, 2);
    EXPECT_EQ(passes.size(), 2U * 8 * 2);
    int forwards = 0;
    for (const PipelinePass& pass : passes) forwards += pass.forward ? 1 : 0;
    EXPECT_EQ(forwards, 16);
  }
  EXPECT_THROW(static_cast<void>(pipeline_passes(PipelineSchedule::Interleaved, 4, 0, 6, 2)), std::invalid_argument);
}

// ZB-H1: each backward split in two; a device holds at most p - s micro-batches, as under 1F1B.
TEST(PipelinePlan, ZeroBubbleRunsEveryPassOnceAndHoldsNoMoreThanOneForwardOneBackward) {
  EXPECT_EQ(text(pipeline_passes(PipelineSchedule::ZeroBubble, 2, 0, 4)), "F0 F1 B0 F2 B1 F3 B2 W0 B3 W1 W2 W3 ");
  for (const int p : {2, 4, 8}) {
    for (const int m : {4, 8, 32}) {
      for (int s = 0; s < p; ++s) {
        const auto passes = pipeline_passes(PipelineSchedule::ZeroBubble, p, s, m);
        EXPECT_EQ(passes.size(), 3U * static_cast<std::size_t>(m));
        EXPECT_LE(activations_in_flight(passes), std::min(p - s, m));
      }
    }
  }
}

/// DualPipe's passes: b a backward pass computing its input's gradient alone, + a forward pass run as one with the
/// backward pass after it; a pass of the reverse direction (chunk 1) marked by its micro-batch (m/2 and up).
std::string dualpipe_text(const std::vector<PipelinePass>& passes) {
  std::string out;
  for (const PipelinePass& pass : passes) {
    out += std::string(pass.forward ? "F" : pass.weights ? "W" : pass.input_only ? "b" : "B") +
           std::to_string(pass.microbatch) + (pass.beside_next ? "+" : "") + " ";
  }
  return out;
}

// DualPipe's eight steps (deepseek-ai/DualPipe, dualpipe.py) on 4 devices and 8 micro-batches, 0-3 entering at device
// 0 and 4-7 at device 3: the first device runs its ramp's backward passes split, pairs a forward and a backward pass
// of the two directions in the steady state, and the second device, a middle one, runs its first such pair apart.
TEST(PipelinePlan, DualPipeRunsDeepSeeksOrder) {
  EXPECT_EQ(dualpipe_text(pipeline_passes(PipelineSchedule::DualPipe, 4, 0, 8)),
            "F0 F1 F2 F4 b4 W4 F5 F3+ B5 F6+ B0 B6 F7+ B1 B7 b2 W2 b3 W3 ");
  EXPECT_EQ(dualpipe_text(pipeline_passes(PipelineSchedule::DualPipe, 4, 1, 8)),
            "F0 F4 F1 F5 F2 B4 F6+ B0 F3+ B5 F7+ B1 B6 B2 b7 b3 W7 W3 ");
  EXPECT_THROW(static_cast<void>(pipeline_passes(PipelineSchedule::DualPipe, 3, 0, 6)), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(pipeline_passes(PipelineSchedule::DualPipe, 4, 0, 6)), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(pipeline_passes(PipelineSchedule::DualPipe, 4, 0, 9)), std::invalid_argument);
}

// Each device runs each direction's half of the micro-batches forward and backward once, in order, each split
// backward pass's weights once after it, and holds p + 1 micro-batches' activations at most (DualPipe's README).
TEST(PipelinePlan, DualPipeRunsEachDirectionsHalfOnceAndHoldsOneMoreThanTheStages) {
  for (const int p : {2, 4, 8}) {
    for (const int m : {2 * p, 2 * p + 2, 4 * p}) {
      for (int d = 0; d < p; ++d) {
        const std::vector<PipelinePass> passes = pipeline_passes(PipelineSchedule::DualPipe, p, d, m);
        std::array<std::vector<int>, 2> forwards;
        std::array<std::vector<int>, 2> backwards;
        std::vector<std::pair<int, int>> owed;
        for (std::size_t i = 0; i < passes.size(); ++i) {
          const PipelinePass& pass = passes[i];
          const auto c = static_cast<std::size_t>(pass.chunk);
          if (pass.weights) {
            ASSERT_FALSE(owed.empty());
            EXPECT_EQ(owed.front(), std::pair(pass.microbatch, pass.chunk));
            owed.erase(owed.begin());
          } else if (pass.forward) {
            forwards[c].push_back(pass.microbatch);
          } else {
            backwards[c].push_back(pass.microbatch);
            if (pass.input_only) owed.emplace_back(pass.microbatch, pass.chunk);
          }
          if (pass.beside_next) {
            ASSERT_LT(i + 1, passes.size());
            EXPECT_TRUE(pass.forward && !passes[i + 1].forward && !passes[i + 1].input_only);
            EXPECT_NE(passes[i + 1].chunk, pass.chunk);
          }
        }
        EXPECT_TRUE(owed.empty());
        for (int c = 0; c < 2; ++c) {
          std::vector<int> expected(static_cast<std::size_t>(m / 2));
          for (int k = 0; k < m / 2; ++k) expected[static_cast<std::size_t>(k)] = c * (m / 2) + k;
          EXPECT_EQ(forwards[static_cast<std::size_t>(c)], expected) << p << " " << m << " " << d;
          EXPECT_EQ(backwards[static_cast<std::size_t>(c)], expected) << p << " " << m << " " << d;
        }
        EXPECT_EQ(activations_in_flight(passes), p + 1) << p << " " << m << " " << d;
      }
    }
  }
}

// Chunk c of device d computes stage c x devices + d when interleaved; under DualPipe chunk 0 stage d and chunk 1 its
// mirror, stage devices - 1 - d, whose micro-batches flow from the last device to the first.
TEST(PipelinePlan, AChunksNeighboursAreThoseOfItsStageInItsDirection) {
  const auto place = [](PipelineSchedule schedule, int devices, int chunks, int device, int chunk) {
    const ChunkPlace at = chunk_place(schedule, devices, chunks, device, chunk);
    return std::tuple(at.stage, at.next_device, at.next_chunk, at.previous_device, at.previous_chunk);
  };
  EXPECT_EQ(place(PipelineSchedule::Interleaved, 2, 2, 1, 0), std::tuple(1, 0, 1, 0, 0));
  EXPECT_EQ(place(PipelineSchedule::Interleaved, 2, 2, 1, 1), std::tuple(3, -1, 0, 0, 1));
  EXPECT_EQ(place(PipelineSchedule::OneForwardOneBackward, 4, 1, 0, 0), std::tuple(0, 1, 0, -1, 0));
  EXPECT_EQ(place(PipelineSchedule::DualPipe, 4, 1, 1, 0), std::tuple(1, 2, 0, 0, 0));
  EXPECT_EQ(place(PipelineSchedule::DualPipe, 4, 1, 1, 1), std::tuple(2, 0, 1, 2, 1));
  EXPECT_EQ(place(PipelineSchedule::DualPipe, 4, 1, 0, 1), std::tuple(3, -1, 1, 1, 1));
  EXPECT_EQ(place(PipelineSchedule::DualPipe, 4, 1, 3, 1), std::tuple(0, 2, 1, -1, 1));
  EXPECT_EQ(chunks_per_device(PipelineSchedule::DualPipe, 1), 2);
  EXPECT_EQ(model_stages(PipelineSchedule::DualPipe, 4, 1), 4);
  EXPECT_EQ(model_stages(PipelineSchedule::Interleaved, 4, 3), 12);
  EXPECT_EQ(chunk_microbatches(PipelineSchedule::DualPipe, 16), 8);
}

// A cut inside a transformer block would send attention scores between devices: stages end between blocks.
TEST(PipelinePlan, StagesEndBetweenTransformerBlocks) {
  const ModelProfile gpt = find_profile("gpt2_small");
  for (const int stages : {2, 3, 4, 8, 13}) {
    const std::vector<std::size_t> first = split_into_stages(gpt, stages);
    ASSERT_EQ(first.size(), static_cast<std::size_t>(stages) + 1);
    for (std::size_t s = 1; s + 1 < first.size(); ++s) {
      const LayerProfile& before = gpt.layers[first[s] - 1];
      const LayerProfile& after = gpt.layers[first[s]];
      EXPECT_TRUE(before.block < 0 || before.block != after.block) << stages << " stages: " << before.name << " | " << after.name;
    }
  }
  // 12 blocks, the embeddings (two tables) and the final norm and head: 16 places, so 15 cuts at most.
  EXPECT_NO_THROW(static_cast<void>(split_into_stages(gpt, 16)));
  EXPECT_THROW(static_cast<void>(split_into_stages(gpt, 17)), std::invalid_argument);
}

// A plan's screen asks for the same orders again and again: the cache gives each as pipeline_passes builds it, and
// holds a bounded number of passes, starting again past it, still giving every order whole.
TEST(PipelinePlan, PassOrdersAreThePassesOfEachScheduleKeptOnce) {
  PassOrders orders;
  for (int repeat = 0; repeat < 2; ++repeat) {
    for (const PipelineSchedule schedule :
         {PipelineSchedule::GPipe, PipelineSchedule::OneForwardOneBackward, PipelineSchedule::ZeroBubble}) {
      for (int stage = 0; stage < 4; ++stage) {
        EXPECT_EQ(orders.of(schedule, 4, stage, 8, 1, 0), pipeline_passes(schedule, 4, stage, 8));
      }
    }
    EXPECT_EQ(orders.of(PipelineSchedule::Interleaved, 4, 1, 8, 2, 1),
              pipeline_passes(PipelineSchedule::Interleaved, 4, 1, 8, 2, 1));
    EXPECT_EQ(orders.of(PipelineSchedule::DualPipe, 4, 2, 16, 2, 0),
              pipeline_passes(PipelineSchedule::DualPipe, 4, 2, 16, 2));
  }
  // Orders of a million passes each: every fourth call is past the bound and starts the cache again.
  const int microbatches = static_cast<int>(PassOrders::kPassesKept / 8);
  for (int stage = 0; stage < 8; ++stage) {
    const std::vector<PipelinePass>& order = orders.of(PipelineSchedule::GPipe, 8, stage, microbatches, 1, 0);
    ASSERT_EQ(order.size(), 2 * static_cast<std::size_t>(microbatches));
    EXPECT_EQ(order.back(), (PipelinePass{false, microbatches - 1, 0, false}));
  }
}

}  // namespace
}  // namespace dtsim::models
