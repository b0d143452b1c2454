#include "models/model_profile.hpp"

#include <gtest/gtest.h>

namespace dtsim::models {
namespace {

struct BlockTraffic {
  double forward = 0.0;   ///< elements per sample
  double backward = 0.0;
};

BlockTraffic first_block(const ModelProfile& profile) {
  BlockTraffic out;
  for (const LayerProfile& layer : profile.layers) {
    if (layer.block != 0) continue;
    out.forward += layer.forward_traffic / kFloatBytes;
    out.backward += layer.backward_traffic / kFloatBytes;
  }
  return out;
}

// One BERT-Large layer at 128 tokens, attention unfused: h = s d hidden values, f = 4 h inner ones, c = 16 s^2
// scores. Fused (Megatron-LM): two add-norms (5.5 h each way), scores and context (6.5 c, 9.5 c), bias-GELU
// (2 f, 3 f). Eager adds the head copies (8 h each way), the scaling and the mask (4 c, 2 c back), the
// unfused add-norms (7.5 h, 10.5 h back), the bias gradients (5 h + f), the query, key and value gradients'
// sums (6 h), and nothing to GELU, whose bias the product adds.
TEST(KernelFusion, EagerBertLayerMovesWhatItsPyTorchOpsMove) {
  const double s = 128, d = 1024;
  const double h = s * d, f = 4 * h, c = 16 * s * s;
  const BlockTraffic fused = first_block(find_profile("bert_large", {.sequence = 128}));
  EXPECT_DOUBLE_EQ(fused.forward, 11 * h + 6.5 * c + 2 * f);
  EXPECT_DOUBLE_EQ(fused.backward, 11 * h + 9.5 * c + 3 * f);
  const BlockTraffic eager = first_block(find_profile("bert_large", {.sequence = 128, .kernels = KernelFusion::Eager}));
  EXPECT_DOUBLE_EQ(eager.forward, 23 * h + 10.5 * c + 2 * f);
  EXPECT_DOUBLE_EQ(eager.backward, 40 * h + 11.5 * c + 4 * f);
}

// With fused attention the scores never reach memory and the heads need no copies in either mode; eager
// still runs the add-norms op by op, reduces the biases' gradients and sums the three input gradients.
TEST(KernelFusion, EagerWithFusedAttentionCopiesNoHeads) {
  const double s = 1024, d = 768;
  const double h = s * d, f = 4 * h;
  const ProfileOptions options{.sequence = 1024, .attention = AttentionKernel::Fused, .kernels = KernelFusion::Eager};
  const BlockTraffic eager = first_block(find_profile("gpt2_small", options));
  EXPECT_DOUBLE_EQ(eager.forward, 15 * h + 2 * f);
  EXPECT_DOUBLE_EQ(eager.backward, 21 * h + 6 * h + 5 * h + 4 * f);
}

// Llama's SwiGLU without biases: eager SiLU and product apart (5 and 8 per inner value against 3 and 5),
// and no bias gradients.
TEST(KernelFusion, EagerSwiGluRunsSiluAndProductApart) {
  const double s = 4096, d = 4096, inner = 11008 * s;
  const double h = s * d;
  const ProfileOptions fused_options{.sequence = 4096, .attention = AttentionKernel::Fused};
  ProfileOptions eager_options = fused_options;
  eager_options.kernels = KernelFusion::Eager;
  const BlockTraffic fused = first_block(find_profile("llama2_7b", fused_options));
  const BlockTraffic eager = first_block(find_profile("llama2_7b", eager_options));
  EXPECT_DOUBLE_EQ(eager.forward - fused.forward, 2 * inner + 2 * 2 * h);
  EXPECT_DOUBLE_EQ(eager.backward - fused.backward, 3 * inner + 2 * 5 * h + 6 * h);
}

// The kernels move memory, not FLOPs or parameters: both modes count the same work.
TEST(KernelFusion, EagerChangesOnlyTheTraffic) {
  const ModelProfile fused = find_profile("bert_large_pretraining", {.sequence = 512});
  const ModelProfile eager = find_profile("bert_large_pretraining", {.sequence = 512, .kernels = KernelFusion::Eager});
  EXPECT_DOUBLE_EQ(eager.forward_flops(), fused.forward_flops());
  EXPECT_DOUBLE_EQ(eager.parameters(), fused.parameters());
  EXPECT_DOUBLE_EQ(eager.activation_bytes(), fused.activation_bytes());
  ASSERT_EQ(eager.layers.size(), fused.layers.size());
  for (std::size_t i = 0; i < fused.layers.size(); ++i) {
    EXPECT_GE(eager.layers[i].forward_traffic + eager.layers[i].backward_traffic,
              fused.layers[i].forward_traffic + fused.layers[i].backward_traffic)
        << fused.layers[i].name;
  }
}

}  // namespace
}  // namespace dtsim::models
