#include "models/device_share.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <stdexcept>
#include <string_view>

namespace dtsim::models {
namespace {

double split_parameters(const ModelProfile& profile) {
  double out = 0.0;
  for (const LayerProfile& layer : profile.layers) out += layer.tensor != TensorSplit::Replicated ? layer.parameters : 0.0;
  return out;
}

// Megatron-LM's split: the two matrices of attention and of the feed-forward block, and the vocabulary, over
// the group; the norms and the position table whole on every device.
TEST(DeviceShare, TensorGroupsSplitTheMatricesAndReplicateTheRest) {
  const ModelProfile gpt3 = find_profile("gpt3_175b");
  const double split = split_parameters(gpt3);
  const double replicated = gpt3.parameters() - split;
  // 96 layers x 2 norms x 2 x 12288, the final norm, and 2048 positions x 12288.
  EXPECT_DOUBLE_EQ(replicated, 96.0 * 4 * 12288 + 2 * 12288 + 2048.0 * 12288);
  const ModelProfile device = device_share(gpt3, {.tensor = 8});
  EXPECT_DOUBLE_EQ(device.parameters(), split / 8 + replicated);
  EXPECT_NEAR(device.training_flops() / gpt3.training_flops(), 1.0 / 8, 0.002);
  EXPECT_EQ(device.layers.size(), gpt3.layers.size());
  // Sequence parallelism splits the rest of the work by tokens, not the weights.
  const ModelProfile sequence = device_share(gpt3, {.tensor = 8, .sequence_parallel = true});
  EXPECT_DOUBLE_EQ(sequence.parameters(), device.parameters());
  EXPECT_DOUBLE_EQ(sequence.training_flops(), gpt3.training_flops() / 8);
  EXPECT_DOUBLE_EQ(sequence.activation_bytes(), gpt3.activation_bytes() / 8);
  // 4 sums of the hidden state per block, one for the token table and one for the head.
  int sums = 0;
  for (const LayerProfile& layer : gpt3.layers) {
    if (layer.tensor == TensorSplit::Column || layer.tensor == TensorSplit::Row) {
      ++sums;
      EXPECT_DOUBLE_EQ(layer.tensor_sum_elements, 2048.0 * 12288) << layer.name;
    }
  }
  EXPECT_EQ(sums, 4 * 96 + 2);
  EXPECT_THROW(static_cast<void>(device_share(gpt3, {.tensor = 0})), std::invalid_argument);
}

// A context group splits every sequence's tokens: each device computes and keeps 1/c of every layer's work
// and activations, holds every weight, and its block of keys and values is its tokens' (divided by the tensor
// group's heads too); the experts a device holds are 1/expert of the routed ones.
TEST(DeviceShare, ContextGroupsSplitTheTokensAndExpertGroupsTheExperts) {
  const ModelProfile llama = find_profile("llama2_70b");
  const ModelProfile context = device_share(llama, {.tensor = 8, .context = 4});
  const ModelProfile tensor = device_share(llama, {.tensor = 8});
  EXPECT_DOUBLE_EQ(context.parameters(), tensor.parameters());
  EXPECT_NEAR(context.training_flops(), tensor.training_flops() / 4, 1e-9 * tensor.training_flops());
  EXPECT_NEAR(context.activation_bytes(), tensor.activation_bytes() / 4, 1e-9 * tensor.activation_bytes());
  for (std::size_t i = 0; i < llama.layers.size(); ++i) {
    if (llama.layers[i].context_exchange_elements == 0.0) continue;
    // Keys and values of 8 heads of 128 for the whole sequence, per tensor rank and context rank.
    EXPECT_DOUBLE_EQ(llama.layers[i].context_exchange_elements, 4096.0 * 2 * 8 * 128) << llama.layers[i].name;
    EXPECT_DOUBLE_EQ(context.layers[i].context_exchange_elements, 4096.0 * 2 * 8 * 128 / 8 / 4);
  }
  const ModelProfile mixtral = find_profile("mixtral_8x7b");
  const ModelProfile experts = device_share(mixtral, {.expert = 8});
  double routed = 0.0;
  for (const LayerProfile& layer : mixtral.layers) routed += layer.routed() ? layer.parameters : 0.0;
  EXPECT_NEAR(experts.parameters(), mixtral.parameters() - routed * 7.0 / 8.0, 1.0);
  EXPECT_NEAR(experts.training_flops(), mixtral.training_flops(), 1e-9 * mixtral.training_flops());
}

// On the experts' own grid (training.parallelism.expert_tensor declared, Megatron-Core's) a routed expert's
// matrices are split over its expert-tensor group alone, and each tensor rank dispatches its own 1/t of the routed
// tokens, its sequence-parallel share. Under tensor 2 and expert 4 with expert_tensor 1: whole experts, 1/4 of them,
// over half the values a device sends through the all-to-all; the same FLOPs as when the tensor group splits the
// experts (half the tokens through whole matrices, against every token through half of them).
TEST(DeviceShare, OnTheExpertsOwnGridEachTensorRankDispatchesItsShareOfTheTokens) {
  const ModelProfile mixtral = find_profile("mixtral_8x7b");
  const ModelProfile tensor =
      device_share(mixtral, {.tensor = 2, .sequence_parallel = true, .expert = 4, .expert_matrices = 2});
  const ModelProfile grid = device_share(
      mixtral, {.tensor = 2, .sequence_parallel = true, .expert = 4, .expert_matrices = 1, .expert_grid = true});
  const ModelProfile split = device_share(
      mixtral, {.tensor = 2, .sequence_parallel = true, .expert = 4, .expert_matrices = 2, .expert_grid = true});
  int routed = 0;
  for (std::size_t j = 0; j < mixtral.layers.size(); ++j) {
    const LayerProfile& whole = mixtral.layers[j];
    if (!whole.routed()) {
      EXPECT_DOUBLE_EQ(grid.layers[j].parameters, tensor.layers[j].parameters) << whole.name;
      EXPECT_DOUBLE_EQ(grid.layers[j].forward_flops, tensor.layers[j].forward_flops) << whole.name;
      continue;
    }
    ++routed;
    EXPECT_DOUBLE_EQ(tensor.layers[j].parameters, whole.parameters / 4 / 2) << whole.name;
    EXPECT_DOUBLE_EQ(tensor.layers[j].exchange_elements, whole.exchange_elements) << whole.name;
    EXPECT_DOUBLE_EQ(grid.layers[j].parameters, whole.parameters / 4) << whole.name;
    EXPECT_DOUBLE_EQ(grid.layers[j].exchange_elements, whole.exchange_elements / 2) << whole.name;
    EXPECT_DOUBLE_EQ(grid.layers[j].gemm.rows, whole.gemm.rows * 4 / 2) << whole.name;
    EXPECT_DOUBLE_EQ(grid.layers[j].gemm.columns, whole.gemm.columns) << whole.name;
    EXPECT_DOUBLE_EQ(grid.layers[j].gemm.depth, whole.gemm.depth) << whole.name;
    EXPECT_DOUBLE_EQ(grid.layers[j].forward_flops, tensor.layers[j].forward_flops) << whole.name;
    EXPECT_DOUBLE_EQ(grid.layers[j].activation_bytes, tensor.layers[j].activation_bytes) << whole.name;
    // An expert-tensor group of one gathers only its own copies.
    EXPECT_DOUBLE_EQ(grid.layers[j].tensor_sum_elements, grid.layers[j].exchange_elements) << whole.name;
    // An expert-tensor group of 2 splits the matrices and gathers the copies of both its devices' tokens.
    EXPECT_DOUBLE_EQ(split.layers[j].parameters, whole.parameters / 4 / 2) << whole.name;
    EXPECT_DOUBLE_EQ(split.layers[j].gemm.rows, whole.gemm.rows * 4) << whole.name;
    EXPECT_DOUBLE_EQ(split.layers[j].exchange_elements, whole.exchange_elements / 2) << whole.name;
    EXPECT_DOUBLE_EQ(split.layers[j].tensor_sum_elements, whole.exchange_elements) << whole.name;
    EXPECT_DOUBLE_EQ(split.layers[j].forward_flops, tensor.layers[j].forward_flops) << whole.name;
  }
  EXPECT_GT(routed, 0);
  EXPECT_NEAR(grid.training_flops(), tensor.training_flops(), 1e-9 * tensor.training_flops());
}

// Full recomputation keeps each block's input (s x h values) and reruns each block's forward pass; selective
// drops only the attention scores and probabilities (2 x heads x s^2 per layer) and reruns their forward.
// Each device's products: a column split narrows their outputs, a row split their reduction; the tokens
// stay whole, except in the unsplit products under sequence parallelism.
TEST(DeviceShare, TensorGroupsNarrowEachDevicesProducts) {
  const ModelProfile bert = find_profile("bert_large_pretraining", {.sequence = 128});
  const ModelProfile split = device_share(bert, {.tensor = 4});
  const ModelProfile sequence = device_share(bert, {.tensor = 4, .sequence_parallel = true});
  int checked = 0;
  for (std::size_t j = 0; j < bert.layers.size(); ++j) {
    const LayerProfile& whole = bert.layers[j];
    if (whole.gemm.rows == 0.0) continue;
    const LayerProfile& device = split.layers[j];
    const double t = 4.0;
    EXPECT_DOUBLE_EQ(device.gemm.columns, whole.gemm.columns / (whole.tensor == TensorSplit::Column ? t : 1.0));
    EXPECT_DOUBLE_EQ(device.gemm.depth, whole.gemm.depth / (whole.tensor == TensorSplit::Row ? t : 1.0));
    EXPECT_DOUBLE_EQ(device.gemm.rows, whole.gemm.rows) << whole.name;
    const bool replicated = whole.tensor == TensorSplit::Replicated;
    EXPECT_DOUBLE_EQ(sequence.layers[j].gemm.rows, whole.gemm.rows / (replicated ? t : 1.0)) << whole.name;
    ++checked;
  }
  EXPECT_EQ(checked, 24 * 4 + 4);  // qkv, output, up and down of each layer; pooler, mlm.transform, lm_head, nsp
}

TEST(DeviceShare, RecomputationTradesActivationsForAForwardPass) {
  const ModelProfile llama = find_profile("llama2_7b");
  const double s = 4096;
  const double h = 4096;
  double outside = 0.0;  // the embeddings, final norm and head keep theirs
  double block_forward = 0.0;
  double core_forward = 0.0;  // the scores, their softmax and the context product: core attention
  for (const LayerProfile& layer : llama.layers) {
    if (layer.block < 0) outside += layer.activation_bytes;
    if (layer.block >= 0) block_forward += layer.forward_flops;
    if (layer.name.ends_with(".attention.scores") || layer.name.ends_with(".attention.context")) {
      core_forward += layer.forward_flops;
    }
  }
  const ModelProfile full = device_share(llama, {.recomputation = Recomputation::Full});
  EXPECT_DOUBLE_EQ(full.activation_bytes(), outside + 32 * s * h * 4.0);
  EXPECT_DOUBLE_EQ(full.training_flops(), llama.training_flops() + block_forward);
  EXPECT_DOUBLE_EQ(full.parameters(), llama.parameters());
  const ModelProfile selective = device_share(llama, {.recomputation = Recomputation::Selective});
  EXPECT_DOUBLE_EQ(selective.activation_bytes(), llama.activation_bytes() - 32 * 2.0 * 32 * s * s * 4.0);
  EXPECT_DOUBLE_EQ(selective.training_flops(), llama.training_flops() + core_forward);
  // Under a tensor group the kept input is whole on every device, unless split by tokens.
  const ModelProfile full_split = device_share(llama, {.tensor = 4, .recomputation = Recomputation::Full});
  const ModelProfile full_sequence =
      device_share(llama, {.tensor = 4, .sequence_parallel = true, .recomputation = Recomputation::Full});
  double outside_split = 0.0;
  for (const LayerProfile& layer : device_share(llama, {.tensor = 4}).layers) {
    if (layer.block < 0) outside_split += layer.activation_bytes;
  }
  EXPECT_DOUBLE_EQ(full_split.activation_bytes(), outside_split + 32 * s * h * 4.0);
  EXPECT_LT(full_sequence.activation_bytes(), full_split.activation_bytes());
}

// FlashAttention keeps each query's log-sum-exp per head (FP32) instead of the scores and probabilities, and its
// backward pass computes the scores and their softmax again: a device's backward pass does the scores' forward
// FLOPs once more, which the model's FLOPs (and MFU) leave out.
TEST(DeviceShare, FusedAttentionKeepsTheLogSumExpAndRecomputesItsScores) {
  const ModelProfile unfused = find_profile("llama2_7b");
  const ModelProfile fused = find_profile("llama2_7b", {.attention = AttentionKernel::Fused});
  const double s = 4096;
  double scores_forward = 0.0;
  for (const LayerProfile& layer : fused.layers) {
    if (!layer.name.ends_with(".attention.scores")) continue;
    EXPECT_DOUBLE_EQ(layer.activation_bytes, 32 * s * 4.0) << layer.name;
    scores_forward += layer.forward_flops;
  }
  EXPECT_DOUBLE_EQ(fused.training_flops(), unfused.training_flops());
  EXPECT_DOUBLE_EQ(unfused.activation_bytes() - fused.activation_bytes(), 32 * (2.0 * 32 * s * s - 32 * s) * 4.0);
  const ModelProfile device = device_share(fused, {});
  EXPECT_DOUBLE_EQ(device.training_flops(), fused.training_flops() + scores_forward);
  EXPECT_DOUBLE_EQ(device.activation_bytes(), fused.activation_bytes());
}

// Megatron-Core's recompute_modules on DeepSeek-V3 (61 blocks 7168 wide at 4096 tokens; 3 dense blocks with a
// SwiGLU 18432 wide, 58 with 1 shared and 8 routed SwiGLU experts 2048 wide a token; 128 heads whose latent
// up-projections give 128 x (128 + 64) query and 128 x (128 + 128) key-value values a token): each module drops
// what it keeps and charges its forward FLOPs to the backward pass again.
TEST(DeviceShare, RecomputedModulesDropWhatTheyKeepAndRerunTheirForwardPass) {
  const ModelProfile v3 = find_profile("deepseek_v3", {.attention = AttentionKernel::Fused});
  const double s = 4096;
  const auto recomputing = [&](RecomputedModule module) {
    return device_share(v3, {.recomputation = Recomputation::Selective, .recomputed = static_cast<unsigned>(module)});
  };
  const auto forward_of = [&](std::initializer_list<std::string_view> suffixes) {
    double flops = 0.0;
    for (const LayerProfile& layer : v3.layers) {
      for (const std::string_view suffix : suffixes) flops += layer.name.ends_with(suffix) ? layer.forward_flops : 0.0;
    }
    return flops;
  };
  const ModelProfile kept = device_share(v3, {});
  const auto dropped = [&](const ModelProfile& share) { return kept.activation_bytes() - share.activation_bytes(); };
  const auto rerun = [&](const ModelProfile& share) { return share.training_flops() - kept.training_flops(); };

  const ModelProfile norms = recomputing(RecomputedModule::LayerNorm);
  EXPECT_DOUBLE_EQ(dropped(norms), 61 * 2 * s * 7168 * 4.0);
  EXPECT_DOUBLE_EQ(rerun(norms), 61 * 2 * 9.0 * s * 7168);
  const ModelProfile up_projections = recomputing(RecomputedModule::LatentUpProjection);
  EXPECT_DOUBLE_EQ(dropped(up_projections), 61 * s * 128 * (192.0 + 256.0) * 4.0);
  EXPECT_DOUBLE_EQ(rerun(up_projections), forward_of({".attention.q_up", ".attention.kv_up"}));
  const ModelProfile mlp = recomputing(RecomputedModule::Mlp);
  EXPECT_DOUBLE_EQ(dropped(mlp), 3 * 3.0 * s * 18432 * 4.0);
  EXPECT_DOUBLE_EQ(rerun(mlp), forward_of({".ffn.up", ".ffn.down"}));
  const ModelProfile shared = recomputing(RecomputedModule::SharedExperts);
  EXPECT_DOUBLE_EQ(dropped(shared), 58 * 3.0 * s * 2048 * 4.0);
  EXPECT_DOUBLE_EQ(rerun(shared), forward_of({".moe.shared.up", ".moe.shared.down"}));
  // The routed experts' SwiGLU: its product of gate and up dropped (8 copies of each token), about 5 FLOPs each.
  const ModelProfile activation = recomputing(RecomputedModule::ExpertActivation);
  EXPECT_DOUBLE_EQ(dropped(activation), 58 * 8 * s * 2048 * 4.0);
  EXPECT_DOUBLE_EQ(rerun(activation), 58 * 5.0 * 8 * s * 2048);
  // Core attention, the default: the scores' log-sum-exp dropped, the scores and the context product rerun.
  const ModelProfile core = device_share(v3, {.recomputation = Recomputation::Selective});
  EXPECT_DOUBLE_EQ(dropped(core), 61 * 128 * s * 4.0);
  EXPECT_DOUBLE_EQ(rerun(core), forward_of({".attention.scores", ".attention.context"}));
}

}  // namespace
}  // namespace dtsim::models
