#include "models/model_profile.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <tuple>

namespace dtsim::models {
namespace {

void expect_within(double value, double published, double tolerance, const std::string& what) {
  EXPECT_LE(std::abs(value / published - 1.0), tolerance) << what << ": " << value << " against " << published;
}

// Parameter totals of the released models: torchvision's resnet50, BertModel (with the pooler) of
// bert-base/large-uncased, and the four GPT-2 checkpoints.
TEST(ModelProfile, ParameterCountsMatchTheReleasedModelsWithinOnePercent) {
  expect_within(find_profile("resnet50").parameters(), 25'557'032, 0.01, "resnet50");
  EXPECT_DOUBLE_EQ(find_profile("resnet18").parameters(), 11'689'512);
  expect_within(find_profile("bert_base").parameters(), 109'482'240, 0.01, "bert_base");
  expect_within(find_profile("bert_large").parameters(), 335'141'888, 0.01, "bert_large");
  // BertForPreTraining: the encoder, the masked-LM transform, norm and output biases (its weights are the
  // token table's), and the next-sentence classifier.
  EXPECT_DOUBLE_EQ(find_profile("bert_base_pretraining").parameters(), 110'106'428);
  EXPECT_DOUBLE_EQ(find_profile("bert_large_pretraining").parameters(), 336'226'108);
  expect_within(find_profile("gpt2_small").parameters(), 124'439'808, 0.01, "gpt2_small");
  expect_within(find_profile("gpt2_medium").parameters(), 354'823'168, 0.01, "gpt2_medium");
  expect_within(find_profile("gpt2_large").parameters(), 774'030'080, 0.01, "gpt2_large");
  expect_within(find_profile("gpt2_xl").parameters(), 1'557'611'200, 0.01, "gpt2_xl");
  // GPT-3's paper gives 175.0B; the Llama checkpoints' configurations count exactly.
  expect_within(find_profile("gpt3_175b").parameters(), 175.0e9, 0.01, "gpt3_175b");
  EXPECT_DOUBLE_EQ(find_profile("llama2_7b").parameters(), 6'738'415'616);
  EXPECT_DOUBLE_EQ(find_profile("llama2_70b").parameters(), 68'976'648'192);
  EXPECT_DOUBLE_EQ(find_profile("llama3_405b").parameters(), 405'853'388'800);
  // The papers' round figures: 110M (BERT-Base), 340M (BERT-Large, 1.4% above its checkpoint), 1.5B
  // (GPT-2 XL).
  expect_within(find_profile("bert_base").parameters(), 110e6, 0.01, "bert_base (paper)");
  expect_within(find_profile("bert_large").parameters(), 340e6, 0.02, "bert_large (paper)");
  expect_within(find_profile("gpt2_xl").parameters(), 1.5e9, 0.04, "gpt2_xl (paper)");
}

// ResNet-50 and ResNet-18: torchvision publishes 4.09 and 1.82 GMACs per 224x224 image. Transformers: Narayanan et al.
// 2021 (Megatron-LM), forward FLOPs per sequence 24 s L h^2 (1 + s / 6h) + 2 s h V (the last term for a language-model
// head only).
TEST(ModelProfile, ForwardFlopsPerSampleMatchPublishedFiguresWithinTenPercent) {
  expect_within(find_profile("resnet50").forward_flops(), 2 * 4.09e9, 0.10, "resnet50");
  expect_within(find_profile("resnet18").forward_flops(), 2 * 1.82e9, 0.10, "resnet18");
  const auto megatron = [](double s, double layers, double h, double vocabulary) {
    return 24 * s * layers * h * h * (1 + s / (6 * h)) + 2 * s * h * vocabulary;
  };
  expect_within(find_profile("bert_base").forward_flops(), megatron(512, 12, 768, 0), 0.10, "bert_base");
  expect_within(find_profile("bert_large").forward_flops(), megatron(512, 24, 1024, 0), 0.10, "bert_large");
  expect_within(find_profile("bert_large", {.sequence = 128}).forward_flops(), megatron(128, 24, 1024, 0), 0.10,
                "bert_large at 128 tokens");
  // Its masked-LM head sees the 19 masked tokens of 128.
  const double masked_head = 2 * 19 * 1024 * (1024 + 30522);
  expect_within(find_profile("bert_large_pretraining", {.sequence = 128}).forward_flops(),
                megatron(128, 24, 1024, 0) + masked_head, 0.10, "bert_large_pretraining at 128 tokens");
  EXPECT_NEAR(find_profile("bert_large_pretraining", {.sequence = 128}).forward_flops() -
                  find_profile("bert_large", {.sequence = 128}).forward_flops(),
              masked_head, 0.02 * masked_head);
  expect_within(find_profile("gpt2_small").forward_flops(), megatron(1024, 12, 768, 50257), 0.10, "gpt2_small");
  expect_within(find_profile("gpt2_xl").forward_flops(), megatron(1024, 48, 1600, 50257), 0.10, "gpt2_xl");
  expect_within(find_profile("gpt3_175b").forward_flops(), megatron(2048, 96, 12288, 50257), 0.10, "gpt3_175b");
  // Llama (Dubey et al. 2024, section 3.2.1's accounting): 2 FLOPs per parameter and token outside the
  // embeddings, and 4 s^2 d per layer for the attention scores and context.
  const auto llama = [](const std::string& name, double s, double layers, double d) {
    const ModelProfile p = find_profile(name);
    const double embeddings = p.layers.front().parameters;
    expect_within(p.forward_flops(), 2 * s * (p.parameters() - embeddings) + 4 * s * s * d * layers, 0.10, name);
  };
  llama("llama2_7b", 4096, 32, 4096);
  llama("llama2_70b", 4096, 80, 8192);
  llama("llama3_405b", 8192, 126, 16384);
}

// Mixtral (Jiang et al. 2024; Mistral AI's announcements): 8x7B "46.7B total parameters, 12.9B per token",
// 8x22B "141B, 39B active"; the released configurations count exactly.
TEST(ModelProfile, MixturesOfExpertsCountTheirTotalAndActiveParameters) {
  const ModelProfile small = find_profile("mixtral_8x7b");
  EXPECT_DOUBLE_EQ(small.parameters(), 46'702'792'704);
  EXPECT_DOUBLE_EQ(small.active_parameters(), 12'879'925'248);
  expect_within(small.parameters(), 46.7e9, 0.01, "mixtral_8x7b");
  expect_within(small.active_parameters(), 12.9e9, 0.01, "mixtral_8x7b active");
  const ModelProfile large = find_profile("mixtral_8x22b");
  EXPECT_DOUBLE_EQ(large.parameters(), 140'630'071'296);
  EXPECT_DOUBLE_EQ(large.active_parameters(), 39'161'468'928);
  expect_within(large.parameters(), 141e9, 0.01, "mixtral_8x22b");
  expect_within(large.active_parameters(), 39e9, 0.01, "mixtral_8x22b active");
  // DeepSeek-V3: "671B total parameters with 37B activated for each token" (its technical report, without
  // the multi-token prediction module). The released configuration counts 671,026,419,200; a token passes
  // through 37,552,297,472 counting the token table's rows, 36,625,618,432 without them: the report's 37B
  // is rounded (1.5% under the first, 1.0% over the second).
  const ModelProfile deepseek = find_profile("deepseek_v3");
  EXPECT_DOUBLE_EQ(deepseek.parameters(), 671'026'419'200);
  EXPECT_DOUBLE_EQ(deepseek.active_parameters(), 37'552'297'472);
  EXPECT_DOUBLE_EQ(deepseek.active_parameters() - deepseek.layers.front().parameters, 36'625'618'432);
  expect_within(deepseek.parameters(), 671e9, 0.01, "deepseek_v3");
  expect_within(deepseek.active_parameters(), 37e9, 0.015, "deepseek_v3 active");
  // Qwen3-235B-A22B's released configuration (heads of 128 over a 4096-wide model, query and key norms): "235B
  // total, 22B activated".
  const ModelProfile qwen = find_profile("qwen3_235b_a22b");
  EXPECT_DOUBLE_EQ(qwen.parameters(), 235'093'634'560);
  EXPECT_DOUBLE_EQ(qwen.active_parameters(), 22'190'763'520);
  expect_within(qwen.parameters(), 235e9, 0.01, "qwen3_235b_a22b");
  expect_within(qwen.active_parameters(), 22e9, 0.01, "qwen3_235b_a22b active");
  // gpt-oss-120b's model card: 116.83B parameters, 5.13B active (the unembedding counted, not the embedding).
  const ModelProfile oss = find_profile("gpt_oss_120b");
  EXPECT_DOUBLE_EQ(oss.parameters(), 116'829'156'672);
  EXPECT_DOUBLE_EQ(oss.active_parameters(), 5'711'982'912);
  expect_within(oss.parameters(), 116.83e9, 0.01, "gpt_oss_120b");
  expect_within(oss.active_parameters() - oss.layers.front().parameters, 5.13e9, 0.01, "gpt_oss_120b active");
  // A dense model's parameters are all active.
  EXPECT_DOUBLE_EQ(find_profile("llama2_70b").active_parameters(), find_profile("llama2_70b").parameters());
}

// A token passes through its top-2 experts: outside attention's s^2 terms, 2 FLOPs per active parameter and
// token, as for a dense model of the active size (the router's softmax and the combination are a few FLOPs
// per token on top).
// gpt-oss-120b's first of every two blocks attends to the last 128 tokens: its scores are s x 128 a head, the
// next block's s x s. Scores: 2 FLOPs per query channel and key, 5 per score for the softmax.
TEST(ModelProfile, ASlidingWindowBlockScoresEachQueryAgainstItsWindowOnly) {
  const ModelProfile oss = find_profile("gpt_oss_120b");
  const double s = 4096;
  const auto scores_of = [&](const std::string& block) {
    const auto layer = std::find_if(oss.layers.begin(), oss.layers.end(),
                                    [&](const LayerProfile& l) { return l.name == block + ".attention.scores"; });
    EXPECT_NE(layer, oss.layers.end()) << block;
    return layer == oss.layers.end() ? 0.0 : layer->forward_flops;
  };
  EXPECT_DOUBLE_EQ(scores_of("decoder.0"), 2.0 * s * 128 * 4096 + 5.0 * 64 * s * 128);
  EXPECT_DOUBLE_EQ(scores_of("decoder.1"), 2.0 * s * s * 4096 + 5.0 * 64 * s * s);
  EXPECT_DOUBLE_EQ(scores_of("decoder.34"), scores_of("decoder.0"));
  EXPECT_DOUBLE_EQ(scores_of("decoder.35"), scores_of("decoder.1"));
}

TEST(ModelProfile, AMixtureComputesWithItsActiveParameters) {
  for (const auto& [name, layers, d] : {std::tuple{"mixtral_8x7b", 32.0, 4096.0}, std::tuple{"mixtral_8x22b", 56.0, 6144.0}}) {
    const ModelProfile p = find_profile(name);
    const double s = 4096;
    const double embeddings = p.layers.front().parameters;
    expect_within(p.forward_flops(), 2 * s * (p.active_parameters() - embeddings) + 4 * s * s * d * layers, 0.02, name);
    // Each expert's products run over the tokens routed to it: 2 of 8 per token.
    for (const LayerProfile& layer : p.layers) {
      if (layer.name.find(".moe.experts.") == std::string::npos) continue;
      EXPECT_DOUBLE_EQ(layer.gemm.rows, s * 2 / 8) << layer.name;
      EXPECT_DOUBLE_EQ(layer.active_share, 0.25) << layer.name;
    }
  }
  // DeepSeek-V3's latent attention: scores over heads of 128 + 64 dimensions, values of 128.
  const ModelProfile deepseek = find_profile("deepseek_v3");
  const double s = 4096;
  const double embeddings = deepseek.layers.front().parameters;
  expect_within(deepseek.forward_flops(),
                2 * s * (deepseek.active_parameters() - embeddings) + 2 * s * s * 128 * (192 + 128) * 61, 0.02,
                "deepseek_v3");
}

// profile:gpt with experts: each block's feed-forward part becomes `experts` copies of the dense block's, and
// a token passing through one of them (top_k 1, Switch Transformer's routing) passes through as many
// parameters as the dense model has, plus the router's d x E.
TEST(ModelProfile, AGptWithExpertsHoldsEveryExpertAndComputesWithItsTopK) {
  const GptShape dense{.layers = 2, .width = 64, .heads = 4, .vocabulary = 100, .sequence = 32};
  GptShape switched = dense;
  switched.experts = 4, switched.top_k = 1;
  const ModelProfile a = gpt_profile(dense);
  const ModelProfile b = gpt_profile(switched);
  const double block_ffn = (64.0 * 256 + 256) + (256.0 * 64 + 64);
  EXPECT_DOUBLE_EQ(b.parameters(), a.parameters() + 2 * (3 * block_ffn + 64 * 4));
  EXPECT_DOUBLE_EQ(b.active_parameters(), a.parameters() + 2 * 64 * 4);
  GptShape shared = switched;
  shared.shared_experts = 1, shared.expert_width = 128;
  const double narrow_ffn = (64.0 * 128 + 128) + (128.0 * 64 + 64);
  EXPECT_DOUBLE_EQ(gpt_profile(shared).active_parameters(), a.parameters() - 2 * block_ffn + 2 * (2 * narrow_ffn + 64 * 4));
  // The mixture's keys need experts, and experts need top_k of at most them.
  const auto key_at_fault = [](GptShape shape) {
    try {
      static_cast<void>(gpt_profile(shape));
    } catch (const ProfileError& error) {
      return error.key();
    }
    return std::string("none");
  };
  GptShape no_top_k = dense;
  no_top_k.experts = 4;
  EXPECT_EQ(key_at_fault(no_top_k), "experts");
  GptShape too_many = switched;
  too_many.top_k = 5;
  EXPECT_EQ(key_at_fault(too_many), "top_k");
  GptShape no_experts = dense;
  no_experts.top_k = 2;
  EXPECT_EQ(key_at_fault(no_experts), "top_k");
  EXPECT_EQ(key_at_fault(switched), "none");
}

// profile:llama of the released configurations' shapes is the named profile, dense or with experts.
TEST(ModelProfile, ALlamaOfAnyShapeIsTheNamedProfileOfItsShape) {
  const GptShape seven{.layers = 32, .width = 4096, .heads = 32, .vocabulary = 32000, .sequence = 4096};
  const ModelProfile llama = llama_profile(LlamaShape{.base = seven, .key_value_heads = 0, .feed_forward = 11008});
  EXPECT_DOUBLE_EQ(llama.parameters(), find_profile("llama2_7b").parameters());
  EXPECT_DOUBLE_EQ(llama.training_flops(), find_profile("llama2_7b").training_flops());
  GptShape mixture = seven;
  mixture.experts = 8, mixture.top_k = 2;
  const ModelProfile mixtral = llama_profile(LlamaShape{.base = mixture, .key_value_heads = 8, .feed_forward = 14336});
  EXPECT_DOUBLE_EQ(mixtral.parameters(), find_profile("mixtral_8x7b").parameters());
  EXPECT_DOUBLE_EQ(mixtral.active_parameters(), find_profile("mixtral_8x7b").active_parameters());
  EXPECT_DOUBLE_EQ(mixtral.training_flops(), find_profile("mixtral_8x7b").training_flops());
  // Qwen3's heads, 128 wide on a 4,096-wide model, their queries and keys normalized.
  const GptShape qwen{.layers = 94, .width = 4096, .heads = 64, .vocabulary = 151936, .sequence = 4096,
                      .experts = 128, .top_k = 8, .expert_width = 1536};
  const ModelProfile qwen3 = llama_profile(
      LlamaShape{.base = qwen, .key_value_heads = 4, .feed_forward = 1536, .head_dim = 128, .qk_norm = true});
  EXPECT_DOUBLE_EQ(qwen3.parameters(), find_profile("qwen3_235b_a22b").parameters());
  EXPECT_DOUBLE_EQ(qwen3.active_parameters(), find_profile("qwen3_235b_a22b").active_parameters());
  EXPECT_DOUBLE_EQ(qwen3.training_flops(), find_profile("qwen3_235b_a22b").training_flops());
  EXPECT_LT(llama_profile(LlamaShape{.base = qwen, .key_value_heads = 4, .feed_forward = 1536}).parameters(),
            qwen3.parameters());
  try {
    static_cast<void>(llama_profile(LlamaShape{.base = seven, .key_value_heads = 5, .feed_forward = 11008}));
    ADD_FAILURE() << "5 key-value heads for 32 heads";
  } catch (const ProfileError& error) {
    EXPECT_EQ(error.key(), "key_value_heads");
  }
}

TEST(ModelProfile, TrainingCostsForwardPlusTwiceItAndEveryLayerIsNamed) {
  for (const std::string& name : profile_names()) {
    const ModelProfile profile = find_profile(name);
    EXPECT_EQ(profile.name, name);
    EXPECT_FALSE(profile.layers.empty());
    // Elementwise layers (norms, activations) cost the same backward as forward, so slightly under 3x.
    EXPECT_NEAR(profile.training_flops() / profile.forward_flops(), 3.0, 0.05) << name;
    EXPECT_GT(profile.activation_bytes(), 0.0);
    for (const LayerProfile& layer : profile.layers) {
      EXPECT_FALSE(layer.name.empty());
      EXPECT_GE(layer.parameters, 0.0);
      EXPECT_GT(layer.forward_flops, 0.0) << name << " " << layer.name;
    }
  }
  EXPECT_EQ(profile_names().size(), 19U);
  EXPECT_THROW(static_cast<void>(find_profile("gpt3")), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(find_profile("bert_base", {.sequence = 1024})), std::invalid_argument);
}

TEST(ModelProfile, ResNetLayerTableFollowsTheArchitecture) {
  const ModelProfile resnet = find_profile("resnet50");
  int convolutions = 0;
  for (const LayerProfile& layer : resnet.layers) convolutions += layer.name.find("conv") != std::string::npos ? 1 : 0;
  EXPECT_EQ(convolutions, 1 + 3 * 16);  // the stem and three per bottleneck
  // ResNet-18: the stem, two 3x3 per basic block (8 of them), and a 1x1 downsampling at stages 2 to 4.
  int basic = 0;
  int downsampling = 0;
  for (const LayerProfile& layer : find_profile("resnet18").layers) {
    basic += layer.name.find("conv") != std::string::npos ? 1 : 0;
    downsampling += layer.name.find("downsample") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(basic, 1 + 2 * 8);
  EXPECT_EQ(downsampling, 3);
  // The stem: 7 x 7 x 3 x 64 weights and 64 x 2 batch-norm parameters.
  EXPECT_EQ(resnet.layers.front().parameters, 7 * 7 * 3 * 64 + 128);
  EXPECT_EQ(resnet.layers.back().parameters, 2048 * 1000 + 1000);
}

}  // namespace
}  // namespace dtsim::models
