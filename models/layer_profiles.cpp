#include "models/model_plugin.hpp"
#include "models/sequence_bins.hpp"
#include "sim/core/parameter_values.hpp"

#include <functional>

namespace dtsim::models {
namespace {

core::SchemaNode sequence_length_parameter() {
  return core::integer("sequence_length", 1, 131'072,
                       "tokens per sample of a transformer profile (at most its positions); when absent, a named "
                       "profile's own (`dtsim list profiles`), 2048 for profile:gpt and 4096 for profile:llama");
}

core::SchemaNode attention_parameter() {
  return core::choice_of("attention", "attention kernel", "how attention runs, which decides its memory traffic",
                         {{"auto", "fused where frameworks fuse attention on every worker's device (FlashAttention: "
                                   "the built-in a100, h100 and h200), unfused elsewhere"},
                          {"unfused", "standard kernels: the s x s scores, their softmax and dropout go through memory "
                                      "(Megatron-LM 2021, BERT)"},
                          {"fused", "one kernel that keeps the scores on chip (FlashAttention)"}})
      .fallback("auto");
}

core::SchemaNode kernels_parameter() {
  return core::choice_of("kernels", "kernel fusion",
                         "how the memory-bound kernels between the matrix products run, which decides their traffic",
                         {{"fused", "fused as Megatron-LM fuses them: bias-dropout-add, bias-GELU, scale-mask-softmax, "
                                    "attention without head copies"},
                          {"eager", "one kernel per PyTorch op, as Hugging Face's BERT or a plain training loop runs "
                                    "them: separate scaling, masking, dropout, addition and norm kernels, heads copied "
                                    "through memory, bias gradients reduced apart"}})
      .fallback("fused");
}

core::SchemaNode sequence_bins_parameter() {
  return core::list_of("sequence_bins",
                       "samples of several lengths, every batch padded to its bin's longest (NVIDIA's LDDL "
                       "binning): the share of the samples in each of n equal bins of lengths up to "
                       "sequence_length, shortest first; any non-negative scale (counts or fractions)",
                       core::number("[]", 0.0, 1e15, "a bin's share of the samples"))
      .for_example("[0.18, 0.19, 0.11, 0.08, 0.06, 0.05, 0.04, 0.27]");
}

/// The weights of `sequence_bins`; empty when not given.
std::vector<double> bins_of(const core::View& m) {
  std::vector<double> out;
  const core::ConfigNode* list = m.has("sequence_bins") ? m.node()->find("sequence_bins") : nullptr;
  if (list == nullptr || !list->is_list()) return out;
  for (const core::ConfigNode& item : list->items) out.push_back(core::parse_number(item.scalar).value_or(0.0));
  return out;
}

/// `auto` is resolved by the scenario, which knows the devices (scenario_builder.cpp); where no scenario
/// resolved it, attention runs unfused, which every GPU can.
AttentionKernel attention_of(const core::View& m) {
  return m.text("attention") == "fused" ? AttentionKernel::Fused : AttentionKernel::Unfused;
}

KernelFusion kernels_of(const core::View& m) {
  return m.text("kernels") == "eager" ? KernelFusion::Eager : KernelFusion::Fused;
}

/// The timing-only entry of profile `name`, with a sequence length when it is a transformer.
ModelPlugin layer_table(const std::string& name, bool transformer) {
  return {.parameters = transformer ? std::vector<core::SchemaNode>{sequence_length_parameter(), attention_parameter(),
                                                                    kernels_parameter(), sequence_bins_parameter()}
                                    : std::vector<core::SchemaNode>{},
          .trains_on = std::nullopt,
          .make = {},
          .profile = [name](const core::View& m) {
            return find_profile(name, {.sequence = static_cast<std::size_t>(m.integer("sequence_length").value_or(0)),
                                       .attention = attention_of(m),
                                       .kernels = kernels_of(m),
                                       .sequence_bins = bins_of(m)});
          },
          .check = {},
          .example = "{kind: profile:" + name + (transformer ? ", sequence_length: 128}" : "}"),
          .example_data = ""};
}

/// The keys a decoder of any shape (profile:gpt, profile:llama) reads, declared alike for both.
std::vector<core::SchemaNode> decoder_shape_parameters() {
  return {core::integer("blocks", 1, 1024, "decoder layers (transformer blocks)").require(),
          core::integer("hidden_size", 1, 1'048'576, "hidden size (width)").require(),
          core::integer("heads", 1, 4096, "attention heads (they divide the width)").require(),
          core::integer("vocabulary", 1, 10'000'000, "tokens of the vocabulary").fallback("51200"),
          sequence_length_parameter(),
          attention_parameter(),
          kernels_parameter(),
          sequence_bins_parameter(),
          experts_parameter(),
          top_k_parameter(),
          core::integer("shared_experts", 1, 4096,
                        "with experts: experts every token passes besides its routed ones (DeepSeek's); absent: none"),
          expert_width_parameter()};
}

/// The shape the section declares, with `sequence` tokens when it gives none.
GptShape decoder_shape(const core::View& m, int sequence) {
  return {.layers = static_cast<int>(*m.integer("blocks")),
          .width = static_cast<int>(*m.integer("hidden_size")),
          .heads = static_cast<int>(*m.integer("heads")),
          .vocabulary = static_cast<int>(m.filled_integer("vocabulary")),
          .sequence = static_cast<int>(m.integer("sequence_length").value_or(sequence)),
          .attention = attention_of(m),
          .kernels = kernels_of(m),
          .experts = static_cast<int>(m.integer("experts").value_or(0)),
          .top_k = static_cast<int>(m.integer("top_k").value_or(0)),
          .shared_experts = static_cast<int>(m.integer("shared_experts").value_or(0)),
          .expert_width = static_cast<int>(m.integer("expert_width").value_or(0))};
}

/// `shape` with samples of `sequence` tokens (0: its own).
GptShape with_sequence(GptShape shape, std::size_t sequence) {
  if (sequence > 0) shape.sequence = static_cast<int>(sequence);
  return shape;
}

/// `build(sequence)`'s profile (0: the shape's own sequence), binned by `model.sequence_bins` when given.
ModelProfile binned_shape(const core::View& m, const std::function<ModelProfile(std::size_t)>& build) {
  const std::vector<double> bins = bins_of(m);
  return bins.empty() ? build(0) : binned_profile(build, bins);
}

/// A GPT decoder of the shape the section declares (the Megatron-LM papers' models).
ModelPlugin gpt_of_any_shape() {
  return {.parameters = decoder_shape_parameters(),
          .trains_on = std::nullopt,
          .make = {},
          .profile = [](const core::View& m) {
            return binned_shape(m, [shape = decoder_shape(m, 2048)](std::size_t sequence) {
              return gpt_profile(with_sequence(shape, sequence));
            });
          },
          .check = {},
          .example = "{kind: profile:gpt, blocks: 24, hidden_size: 2304, heads: 24}",
          .example_data = ""};
}

/// A Llama decoder of the shape the section declares: grouped-query attention and a SwiGLU block of its own
/// width (Llama 2 7B: blocks 32, hidden_size 4096, heads 32, ffn_hidden_size 11008, vocabulary 32000).
ModelPlugin llama_of_any_shape() {
  std::vector<core::SchemaNode> parameters = decoder_shape_parameters();
  parameters.push_back(core::integer("key_value_heads", 1, 4096,
                                     "grouped-query attention: key-value heads, which divide the heads; absent: as many "
                                     "as the heads"));
  parameters.push_back(core::integer("ffn_hidden_size", 1, 1'048'576, "the SwiGLU block's inner width").require());
  parameters.push_back(core::integer("head_dim", 1, 4096,
                                     "each attention head's width (Qwen3's 128 on a 2,048-wide model); absent: "
                                     "hidden_size / heads"));
  parameters.push_back(core::boolean("qk_norm", "each head's queries and keys RMS-normalized before their product, as "
                                                "Qwen3 does")
                           .fallback("false"));
  return {.parameters = std::move(parameters),
          .trains_on = std::nullopt,
          .make = {},
          .profile = [](const core::View& m) {
            const LlamaShape shape{.base = decoder_shape(m, 4096),
                                   .key_value_heads = static_cast<int>(m.integer("key_value_heads").value_or(0)),
                                   .feed_forward = static_cast<int>(*m.integer("ffn_hidden_size")),
                                   .head_dim = static_cast<int>(m.integer("head_dim").value_or(0)),
                                   .qk_norm = m.filled_flag("qk_norm")};
            return binned_shape(m, [&shape](std::size_t sequence) {
              LlamaShape sized = shape;
              sized.base = with_sequence(shape.base, sequence);
              return llama_profile(sized);
            });
          },
          .check = {},
          .example = "{kind: profile:llama, blocks: 32, hidden_size: 4096, heads: 32, key_value_heads: 8, "
                     "ffn_hidden_size: 14336, experts: 8, top_k: 2}",
          .example_data = ""};
}

}  // namespace

/// Layer tables of published models too large to train here: time and traffic without values.
void register_layer_profiles(ModelRegistry& registry) {
  registry.add("profile:resnet18", "timing only: ResNet-18 layer table (11.7M parameters)",
               layer_table("resnet18", false));
  registry.add("profile:resnet50", "timing only: ResNet-50 layer table (25.6M parameters)", layer_table("resnet50", false));
  registry.add("profile:bert_base", "timing only: BERT-Base layer table (110M parameters)", layer_table("bert_base", true));
  registry.add("profile:bert_large", "timing only: BERT-Large layer table (335M parameters)",
               layer_table("bert_large", true));
  registry.add("profile:bert_base_pretraining",
               "timing only: BERT-Base with its masked-LM and next-sentence heads (110M parameters)",
               layer_table("bert_base_pretraining", true));
  registry.add("profile:bert_large_pretraining",
               "timing only: BERT-Large with its masked-LM and next-sentence heads (336M parameters)",
               layer_table("bert_large_pretraining", true));
  registry.add("profile:gpt2_small", "timing only: GPT-2 small layer table (124M parameters)",
               layer_table("gpt2_small", true));
  registry.add("profile:gpt2_medium", "timing only: GPT-2 medium layer table (355M parameters)",
               layer_table("gpt2_medium", true));
  registry.add("profile:gpt2_large", "timing only: GPT-2 large layer table (774M parameters)",
               layer_table("gpt2_large", true));
  registry.add("profile:gpt2_xl", "timing only: GPT-2 XL layer table (1.56B parameters)", layer_table("gpt2_xl", true));
  registry.add("profile:gpt", "timing only: a GPT decoder of the declared shape (blocks, hidden_size, heads)",
               gpt_of_any_shape());
  registry.add("profile:llama",
               "timing only: a Llama decoder of the declared shape (blocks, hidden_size, heads, key_value_heads, "
               "ffn_hidden_size, head_dim, qk_norm)",
               llama_of_any_shape());
  registry.add("profile:gpt3_175b", "timing only: GPT-3 175B layer table (175B parameters)",
               layer_table("gpt3_175b", true));
  registry.add("profile:llama2_7b", "timing only: Llama 2 7B layer table (6.74B parameters)",
               layer_table("llama2_7b", true));
  registry.add("profile:llama2_70b", "timing only: Llama 2 70B layer table (69.0B parameters, grouped-query attention)",
               layer_table("llama2_70b", true));
  registry.add("profile:llama3_405b", "timing only: Llama 3.1 405B layer table (406B parameters)",
               layer_table("llama3_405b", true));
  registry.add("profile:mixtral_8x7b",
               "timing only: Mixtral 8x7B mixture of experts (46.7B parameters, 12.9B active: 2 of 8 experts a token)",
               layer_table("mixtral_8x7b", true));
  registry.add("profile:mixtral_8x22b",
               "timing only: Mixtral 8x22B mixture of experts (141B parameters, 39.2B active: 2 of 8 experts a token)",
               layer_table("mixtral_8x22b", true));
  registry.add("profile:deepseek_v3",
               "timing only: DeepSeek-V3 mixture of experts with latent attention (671B parameters, 37.6B active: "
               "8 of 256 experts a token and a shared one)",
               layer_table("deepseek_v3", true));
  registry.add("profile:qwen3_235b_a22b",
               "timing only: Qwen3-235B-A22B mixture of experts (235B parameters, 22.2B active: 8 of 128 experts a "
               "token)",
               layer_table("qwen3_235b_a22b", true));
  registry.add("profile:gpt_oss_120b",
               "timing only: gpt-oss-120b mixture of experts (117B parameters, 5.7B active: 4 of 128 experts a "
               "token; every other block a 128-token sliding window)",
               layer_table("gpt_oss_120b", true));
}

}  // namespace dtsim::models
