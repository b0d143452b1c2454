#pragma once
// Layer tables of models too large to train for real: what each layer holds and costs per sample, for
// timing-only runs (no values, the same communication and compute time).

#include "models/op_class.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dtsim::models {

/// How a layer splits over a tensor-parallel group (Megatron-LM, Shoeybi et al. 2019). A split layer's
/// weights, FLOPs and kept activations are divided over the group.
enum class TensorSplit {
  Replicated,  ///< every device of the group computes it whole (norms, residual additions)
  Column,      ///< weights split by output columns: the gradient of its input is summed over the group
  Heads,       ///< attention split by heads: no communication
  Row,         ///< weights split by input rows: its output is summed over the group
};

/// Bytes of one FP32 value: activations and memory traffic are counted at FP32 (half under mixed precision).
inline constexpr double kFloatBytes = 4.0;

/// A mixture of experts moves its routed tokens around its routed experts' products: to the devices of their
/// experts before the first (`Dispatch`), and the experts' outputs back after the last (`Combine`).
enum class TokenExchange { None, Dispatch, Combine };

struct LayerProfile {
  std::string name;
  double parameters = 0.0;
  double forward_flops = 0.0;     ///< per sample
  double backward_flops = 0.0;    ///< per sample: gradients of the inputs and of the weights
  double activation_bytes = 0.0;  ///< per sample: the layer's output, kept for the backward pass (FP32)
  TensorSplit tensor = TensorSplit::Replicated;
  /// Per sample: the values a Column or Row layer sums over its tensor group (the hidden state, s x h).
  double tensor_sum_elements = 0.0;
  /// The transformer block (encoder or decoder layer) this layer belongs to; -1 outside the blocks.
  int block = -1;
  /// The kind of operation its FLOPs are: which sustained efficiency and which peak time it.
  OpClass op = OpClass::Gemm;
  /// Per sample: bytes that the memory-bound kernels around its products (bias and activation, softmax,
  /// dropout, residual addition, normalization) read and write in the forward and in the backward pass,
  /// counted at FP32 (half under mixed precision). Those kernels run after the products, at the memory
  /// bandwidth, so their time adds to the layer's.
  double forward_traffic = 0.0;
  double backward_traffic = 0.0;
  /// Sequences padded to bins (sequence_bins.hpp): the longest batch's kept activations over
  /// `activation_bytes`, which holds their mean over the bins. Memory is checked at the longest.
  double activation_peak_ratio = 1.0;
  /// The share of `parameters` one token passes through: top_k of the experts for a mixture of experts'
  /// routed experts, 1 for every other layer (ModelProfile::active_parameters()).
  double active_share = 1.0;
  /// A matrix-product layer's product: `rows` per sample (its tokens), `columns` out and `depth` in; all 0
  /// for a layer whose shape is not known (timed at the device's large-product efficiency). A mixture of
  /// experts' routed products are one such product per expert, each over the tokens routed to it.
  struct GemmShape {
    double rows = 0.0;
    double columns = 0.0;
    double depth = 0.0;
  } gemm{};
  /// A routed expert layer's exchange of tokens under expert parallelism, and per sample the values each way:
  /// the routed copies of the hidden state, s x top_k x width.
  TokenExchange exchange = TokenExchange::None;
  double exchange_elements = 0.0;
  /// An attention layer's scores under context parallelism: per sample, the keys and values of the whole
  /// sequence a device's queries attend to (its context group brings it the others'); 0 for every other layer.
  double context_exchange_elements = 0.0;
  /// A product the FP8 and FP4 recipes leave in 16 bits: Megatron-Core's language-model head is not a
  /// Transformer Engine module, and its router computes its scores in 16 bits or more.
  bool keeps_16_bits = false;
  /// Per sample: forward FLOPs the backward pass runs again of its own accord: FlashAttention's backward
  /// recomputes the scores and their softmax from the log-sum-exp it kept. The device's work, not the model's:
  /// models::device_share adds them to the backward pass; training_flops() leaves them out.
  double recomputed_flops = 0.0;
  /// An expanding product's activation function (GELU, SwiGLU), per sample, as selective recomputation of the
  /// routed experts' activation (moe_act) reruns it: its FLOPs, the bytes of its output kept, and its kernel's
  /// forward traffic (counted like forward_traffic); all 0 for any other layer.
  struct ActivationFunction {
    double flops = 0.0;
    double kept_bytes = 0.0;
    double traffic = 0.0;
  } activation_function{};

  /// Whether its parameters are routed experts' (spread over an expert group, reduced over their own replicas).
  [[nodiscard]] bool routed() const { return exchange != TokenExchange::None; }
};

/// A layer computed whole by every device of a tensor group, outside the transformer blocks.
inline LayerProfile whole_layer(std::string name, double parameters, double forward_flops, double backward_flops,
                                double activation_bytes, OpClass op = OpClass::Gemm) {
  LayerProfile out;
  out.op = op;
  out.name = std::move(name);
  out.parameters = parameters;
  out.forward_flops = forward_flops;
  out.backward_flops = backward_flops;
  out.activation_bytes = activation_bytes;
  return out;
}

/// The shape a tensor-parallel split must divide: attention heads, key-value heads (grouped-query
/// attention) and the feed-forward width. Zero for a model without attention (no tensor parallelism).
struct TransformerShape {
  int layers = 0;
  int width = 0;
  int heads = 0;
  int key_value_heads = 0;
  int feed_forward = 0;
  int sequence = 0;
  int experts = 0;  ///< routed experts of each mixture block (0: a dense model), which an expert degree divides
  int top_k = 0;    ///< of them, the ones each token is sent to
};

struct ModelProfile {
  std::string name;
  std::string description;
  std::string sample;  ///< what one sample is ("a 224x224 image", "a sequence of 512 tokens")
  std::vector<LayerProfile> layers;
  TransformerShape shape;

  [[nodiscard]] double parameters() const;
  /// The parameters one token passes through: all of them but the routed experts it is not sent to.
  [[nodiscard]] double active_parameters() const;
  [[nodiscard]] double forward_flops() const;
  [[nodiscard]] double training_flops() const;  ///< forward + backward, per sample
  [[nodiscard]] double activation_bytes() const;
  /// The kept activations of the longest batch: activation_bytes() unless sequences are binned.
  [[nodiscard]] double peak_activation_bytes() const;
  /// Memory traffic of one training step on `batch` samples: each activation written in the forward pass
  /// and read twice in the backward pass, and the weights read twice and their gradient written and read
  /// once more by the optimizer (4 bytes each). `half_activations`: activations kept in 16 bits (mixed
  /// precision), half the bytes of the FP32 table.
  [[nodiscard]] double training_bytes(std::size_t batch, bool half_activations = false) const;
};

/// Options of the profile families: the sequence length of the transformers (0: the family's default).
/// How a transformer's attention runs: `Unfused` as standard kernels (the scores, their softmax and
/// dropout go through memory, s x s per head: Megatron-LM 2021, BERT), `Fused` as one kernel that keeps
/// them on chip (FlashAttention, Dao et al. 2022).
enum class AttentionKernel { Unfused, Fused };

/// How the memory-bound kernels between a transformer's matrix products run: `Fused` as Megatron-LM fuses
/// them (bias-dropout-add, bias-GELU, scale-mask-softmax, attention without head copies), `Eager` as PyTorch
/// runs the ops one kernel each (Hugging Face's BERT, a plain training loop): more round trips through memory.
enum class KernelFusion { Fused, Eager };

struct ProfileOptions {
  std::size_t sequence = 0;
  AttentionKernel attention = AttentionKernel::Unfused;
  KernelFusion kernels = KernelFusion::Fused;
  /// Relative weights of equal bins of sequence lengths up to `sequence` (sequence_bins.hpp); empty: every
  /// sample is `sequence` tokens long.
  std::vector<double> sequence_bins{};
};

/// ResNet-50 v1.5 (torchvision): 224x224x3 images, stride on the 3x3 convolutions, 1000 classes.
ModelProfile resnet50_profile();
ModelProfile resnet18_profile();
/// BERT encoders (Devlin et al. 2019) with the pooler: base (12 layers, 768 wide, 12 heads) and large (24,
/// 1024, 16); WordPiece vocabulary 30,522; default sequence 512.
ModelProfile bert_profile(const std::string& size, const ProfileOptions& options);
/// BERT with its pre-training heads (masked language model on the 15% masked tokens, next sentence).
ModelProfile bert_pretraining_profile(const std::string& size, const ProfileOptions& options);
/// GPT-2 decoders (Radford et al. 2019) with the language-model head tied to the embeddings: small (12
/// layers, 768 wide), medium (24, 1024), large (36, 1280), xl (48, 1600); vocabulary 50,257; default
/// sequence 1024.
ModelProfile gpt2_profile(const std::string& size, const ProfileOptions& options);

/// GPT-3 175B (Brown et al. 2020): 96 layers, 12288 wide, 96 heads, GPT-2's vocabulary, 2048 learned
/// positions (the default sequence), language-model head tied to the embeddings.
ModelProfile gpt3_profile(const ProfileOptions& options);
/// Llama decoders (pre-norm RMSNorm, SwiGLU feed-forward, rotary positions, no biases, untied head):
/// Llama 2 7B and 70B (Touvron et al. 2023; 70B with grouped-query attention, 8 key-value heads) and Llama 3
/// 405B (Dubey et al. 2024). `size` is 2_7b, 2_70b or 3_405b.
ModelProfile llama_profile(const std::string& size, const ProfileOptions& options);
/// Mixtral mixtures of experts (Jiang et al. 2024): Llama's blocks with the feed-forward block replaced by 8
/// SwiGLU experts, each token routed to 2. `size` is 8x7b or 8x22b.
ModelProfile mixtral_profile(const std::string& size, const ProfileOptions& options);
/// DeepSeek-V3 (DeepSeek-AI 2024): multi-head latent attention, 3 dense blocks, then 58 blocks of 256 routed
/// experts (8 per token) beside a shared one.
ModelProfile deepseek_v3_profile(const ProfileOptions& options);
/// Qwen3-235B-A22B (Qwen team 2025): 94 blocks of grouped-query attention (64 heads of 128, 4 key-value heads,
/// their queries and keys normalized) and 128 SwiGLU experts 1536 wide, 8 per token.
ModelProfile qwen3_moe_profile(const ProfileOptions& options);
/// gpt-oss-120b (OpenAI 2025): 36 blocks of grouped-query attention (64 heads of 64, 8 key-value heads, a sink
/// logit per head), every other one over a 128-token sliding window, and 128 experts 2880 wide, 4 per token.
ModelProfile gpt_oss_profile(const ProfileOptions& options);

/// A GPT decoder of any shape, as Megatron-LM builds it (Narayanan et al. 2021): learned positions as long
/// as the sequence, GELU feed-forward 4 x width wide, biases, language-model head tied to the embeddings.
struct GptShape {
  int layers = 0;
  int width = 0;
  int heads = 0;
  int vocabulary = 51'200;
  int sequence = 2048;
  AttentionKernel attention = AttentionKernel::Unfused;
  KernelFusion kernels = KernelFusion::Fused;
  /// A mixture of experts when `experts` > 0: every block's feed-forward part is that many GELU experts
  /// `expert_width` wide (0: 4 x width), each token routed to `top_k` of them, beside `shared_experts`.
  int experts = 0;
  int top_k = 0;
  int shared_experts = 0;
  int expert_width = 0;
};
/// Throws ProfileError (key "heads") when the heads do not divide the width, and (keys "experts", "top_k")
/// for a mixture's keys without experts or more experts a token than there are.
ModelProfile gpt_profile(const GptShape& shape);

/// A Llama decoder of any shape (profile:llama): `base`'s layers, width, heads, vocabulary, sequence, kernels
/// and experts, with Llama's blocks (RMSNorm, rotary positions, no biases, untied head), grouped-query
/// attention over `key_value_heads` (0: as many as the heads) and a SwiGLU block `feed_forward` wide (a
/// mixture's experts `base.expert_width` wide, 0: as wide as it). Qwen3's heads: `head_dim` wide each (0: the
/// width over the heads), their queries and keys RMS-normalized when `qk_norm`.
struct LlamaShape {
  GptShape base;
  int key_value_heads = 0;
  int feed_forward = 0;
  int head_dim = 0;
  bool qk_norm = false;
};
/// As gpt_profile, and ProfileError (key "key_value_heads") when they do not divide the heads.
ModelProfile llama_profile(const LlamaShape& shape);

/// A profile that cannot be built as asked, with the `model` key at fault ("heads", "sequence_length"), so
/// that the error points at the value to change.
class ProfileError : public std::invalid_argument {
 public:
  ProfileError(std::string key, const std::string& message, std::string hint)
      : std::invalid_argument(message), key_(std::move(key)), hint_(std::move(hint)) {}
  [[nodiscard]] const std::string& key() const { return key_; }
  [[nodiscard]] const std::string& hint() const { return hint_; }

 private:
  std::string key_;
  std::string hint_;
};

/// The profile called `name` (resnet50, bert_base, bert_large, gpt2_small, gpt2_medium, gpt2_large,
/// gpt2_xl, gpt3_175b, llama2_7b, llama2_70b, llama3_405b, mixtral_8x7b, mixtral_8x22b, deepseek_v3). Throws std::invalid_argument for another name.
ModelProfile find_profile(const std::string& name, const ProfileOptions& options = {});
/// Every profile name, sorted.
std::vector<std::string> profile_names();

}  // namespace dtsim::models
