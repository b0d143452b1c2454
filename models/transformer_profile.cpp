#include "models/model_profile.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace dtsim::models {
namespace {

struct Transformer {
  int layers = 0;
  double width = 0;  ///< d
  double heads = 0;
  double key_value_heads = 0;  ///< grouped-query attention; the heads when equal
  double feed_forward = 0;     ///< the feed-forward block's inner width
  double vocabulary = 0;
  double positions = 0;  ///< learned position embeddings
  double types = 0;      ///< token-type embeddings (BERT's segments)
  double sequence = 0;   ///< tokens per sample
  bool gated = false;    ///< SwiGLU feed-forward (gate and up projections) instead of GELU
  bool biases = true;
  double norm_parameters = 2;    ///< per channel: LayerNorm's gain and bias, RMSNorm's gain
  bool fused_attention = false;  ///< FlashAttention: the scores never reach memory
  bool eager = false;            ///< the kernels between products one PyTorch op each (KernelFusion::Eager)
  /// A mixture of experts: the feed-forward blocks after the first `dense_layers` are `experts` routed experts
  /// of `expert_width`, each token sent to `top_k` of them, beside `shared_experts` every token passes.
  int experts = 0;
  int top_k = 0;
  int shared_experts = 0;
  double expert_width = 0;
  int dense_layers = 0;
  bool router_bias = false;  ///< a per-expert bias on the routing scores (DeepSeek-V3's load balancing)
  /// Multi-head latent attention (DeepSeek-V2 and V3) when `kv_rank` > 0: queries and keys-values projected
  /// through latents of these ranks, each head `qk_nope` + `qk_rope` (rotary) wide for its scores and `v_head`
  /// for its values.
  double q_rank = 0;
  double kv_rank = 0;
  double qk_nope = 0;
  double qk_rope = 0;
  double v_head = 0;
  /// Each head's width when it is not width / heads (Qwen3's 128 over a 4096-wide model of 64 heads).
  double head_dim = 0;
  bool qk_norm = false;  ///< each head's query and key RMS-normalized (Qwen3; one gain per head channel)
  /// GPT-OSS's sliding window when > 0: every other block, the first among them, attends to the last `window`
  /// tokens only (its scores s x window, not s x s).
  double window = 0;
  bool attention_sinks = false;  ///< a learned logit per head beside its scores (GPT-OSS)
};

/// Elements per sample a layer's memory-bound kernels move, forward and backward.
struct Traffic {
  double forward = 0.0;
  double backward = 0.0;
};

/// Sets a layer's memory-bound kernel traffic, given in elements per sample (a one-byte dropout mask counts
/// as half a two-byte element).
LayerProfile& with_traffic(LayerProfile& layer, double forward_elements, double backward_elements) {
  layer.forward_traffic = forward_elements * kFloatBytes;
  layer.backward_traffic = backward_elements * kFloatBytes;
  return layer;
}

/// The traffic of `fused` kernels, or of `eager` ones when the transformer runs its ops one kernel each.
LayerProfile& with_traffic(LayerProfile& layer, const Transformer& t, Traffic fused, Traffic eager) {
  const Traffic& used = t.eager ? eager : fused;
  return with_traffic(layer, used.forward, used.backward);
}

/// Eager PyTorch reduces a product's output gradient over the tokens for its bias gradient, a kernel of its
/// own that reads it once (Megatron-Core's products compute it in the weight gradient's epilogue).
LayerProfile& with_bias_gradient(LayerProfile& layer, const Transformer& t) {
  if (t.eager && t.biases) layer.backward_traffic += layer.gemm.rows * layer.gemm.columns * kFloatBytes;
  return layer;
}

/// A matrix product layer: `in` x `out` weights (and biases) applied to every token.
LayerProfile dense(const std::string& name, double tokens, double in, double out, bool bias = true) {
  const double forward = 2.0 * tokens * in * out + (bias ? tokens * out : 0.0);
  LayerProfile layer =
      whole_layer(name, in * out + (bias ? out : 0.0), forward, 2.0 * forward, tokens * out * kFloatBytes);
  layer.gemm = {tokens, out, in};
  return layer;
}

/// A layer split over a tensor-parallel group that sums `elements` hidden values per sample.
LayerProfile split(LayerProfile layer, TensorSplit how, double elements) {
  layer.tensor = how;
  layer.tensor_sum_elements = elements;
  return layer;
}

/// Residual addition then normalization (about 9 FLOPs per element; `per_channel` parameters per channel).
/// Its kernels, as Megatron-LM fuses them: bias, dropout and residual addition (reads the product and the
/// residual, writes the sum and a mask: 3.5 elements per value; backward reads the gradient and the mask
/// and writes the gradient: 2.5), then the normalization (reads and writes: 2; backward reads the gradient
/// and its input and writes the gradient: 3). Eager, each op its own kernel: dropout (reads, writes, keeps a
/// mask: 2.5), the addition (3), the normalization (2); backward the normalization's input gradient (3) and
/// its gain and bias gradients (a second kernel reading the gradient and the input: 2), the sum of the
/// residual's two gradients (3) and dropout's (2.5).
LayerProfile add_norm(const std::string& name, const Transformer& t, double tokens) {
  const double elements = tokens * t.width;
  const double flops = 9.0 * elements;
  LayerProfile out = whole_layer(name, t.norm_parameters * t.width, flops, 2.0 * flops, elements * kFloatBytes,
                                 OpClass::Elementwise);
  return with_traffic(out, t, {5.5 * elements, 5.5 * elements}, {7.5 * elements, 10.5 * elements});
}

/// The attention scores Q K^T of every head, `query_width` wide in all (2 s^2 per width), their softmax (5
/// per score), and the values' weighted sum, `value_width` wide in all; kept: the scores and the
/// probabilities (unfused), then the context. Split by heads over a tensor group.
void scores_and_context(std::vector<LayerProfile>& out, const std::string& prefix, const Transformer& t,
                        double query_width, double value_width, double key_value_width) {
  const double s = t.sequence;
  const double keys = t.window > 0 ? std::min(t.window, s) : s;  // each query's
  const double hidden = s * value_width;
  const double scores = t.heads * s * keys;
  const double score_flops = 2.0 * s * keys * query_width + 5.0 * scores;
  LayerProfile score_layer = whole_layer(prefix + ".attention.scores", 0.0, score_flops, 2.0 * score_flops,
                                         2.0 * scores * kFloatBytes, OpClass::Attention);
  const double context_flops = 2.0 * s * keys * value_width;
  LayerProfile context_layer = whole_layer(prefix + ".attention.context", 0.0, context_flops, 2.0 * context_flops,
                                           hidden * kFloatBytes, OpClass::Attention);
  if (t.fused_attention) {
    // FlashAttention keeps neither the scores nor the probabilities: only each query's log-sum-exp per head (in
    // FP32) beside its output; its backward pass computes the scores and their softmax again, block by block.
    score_layer.activation_bytes = t.heads * s * kFloatBytes;
    score_layer.recomputed_flops = score_flops;
  } else {
    // Unfused, the scores make round trips through memory. Forward: the product writes them (1 element
    // each), softmax reads and writes (2), dropout reads, writes and keeps a mask (2.5), the context product
    // reads the probabilities (1). Backward: dropout (2.5) and softmax (reads the gradient and its output,
    // writes: 3), the scores product reads its gradient twice (2), the context product writes the
    // probabilities' gradient and reads them (2). Eager adds the scaling by 1/sqrt(head width) and the mask's
    // addition, each reading and writing the scores (2 + 2; backward the scaling again: 2), and copies
    // through memory the heads torch.matmul cannot take as strided views: the context back into token-major
    // order, each way (2 elements per value copied; the query, key and value copies are their product's).
    with_traffic(score_layer, t, {5.5 * scores, 7.5 * scores}, {9.5 * scores, 9.5 * scores});
    with_traffic(context_layer, t, {scores, 2.0 * scores}, {scores + 2.0 * hidden, 2.0 * scores + 2.0 * hidden});
  }
  score_layer.context_exchange_elements = s * key_value_width;
  out.push_back(split(score_layer, TensorSplit::Heads, 0.0));
  out.push_back(split(context_layer, TensorSplit::Heads, 0.0));
}

/// Self-attention, split by heads over a tensor group (the query-key-value product by columns, the output
/// product by rows, as Megatron-LM splits them), then add & norm.
void attention(std::vector<LayerProfile>& out, const std::string& prefix, const Transformer& t) {
  const double s = t.sequence;
  const double d = t.width;
  const double hidden = s * d;
  // The heads' queries, and their keys and values (grouped-query attention: fewer key-value heads).
  const double queries = t.head_dim > 0 ? t.heads * t.head_dim : d;
  const double key_values = t.head_dim > 0 ? 2.0 * t.key_value_heads * t.head_dim : 2.0 * d * t.key_value_heads / t.heads;
  LayerProfile qkv = dense(prefix + ".attention.qkv", s, d, queries + key_values, t.biases);
  if (t.attention_sinks) qkv.parameters += t.heads;
  // Eager and unfused, query, key and value are copied into head-major order (2 elements per value each
  // way); eager, the three products are three (as BERT's PyTorch code writes them), and their input's three
  // gradients are summed by two additions (3 elements each).
  if (t.eager && !t.fused_attention) with_traffic(qkv, 2.0 * s * (queries + key_values), 2.0 * s * (queries + key_values));
  if (t.eager) qkv.backward_traffic += 6.0 * hidden * kFloatBytes;
  if (t.qk_norm) {
    // RMSNorm of every query and key head: a gain per head channel each, some 4 FLOPs an element.
    const double normed = queries + key_values / 2.0;
    qkv.parameters += 2.0 * t.head_dim;
    qkv.forward_flops += 4.0 * s * normed;
    qkv.backward_flops += 8.0 * s * normed;
  }
  out.push_back(split(with_bias_gradient(qkv, t), TensorSplit::Column, hidden));
  scores_and_context(out, prefix, t, queries, queries, key_values);
  LayerProfile output = dense(prefix + ".attention.output", s, queries, d, t.biases);
  out.push_back(split(with_bias_gradient(output, t), TensorSplit::Row, hidden));
  out.push_back(add_norm(prefix + ".attention.norm", t, s));
}

/// Multi-head latent attention (DeepSeek-AI 2024, DeepSeek-V2 section 2.1): the hidden state is projected down
/// to a query latent and a key-value latent (with the keys' shared rotary part), each RMS-normalized (about 4
/// FLOPs per element; one gain per channel), then up to every head's query and its key and value. As
/// Megatron-Core splits it over a tensor group: the down projections replicated, the up projections by
/// columns (their latents' gradients summed), the heads split, the output product by rows.
void latent_attention(std::vector<LayerProfile>& out, const std::string& prefix, const Transformer& t) {
  const double s = t.sequence;
  const double d = t.width;
  const double hidden = s * d;
  LayerProfile q_down = dense(prefix + ".attention.q_down", s, d, t.q_rank, false);
  LayerProfile kv_down = dense(prefix + ".attention.kv_down", s, d, t.kv_rank + t.qk_rope, false);
  for (auto [layer, rank] : {std::pair{&q_down, t.q_rank}, std::pair{&kv_down, t.kv_rank}}) {
    layer->parameters += rank;
    layer->forward_flops += 4.0 * s * rank;
    layer->backward_flops += 8.0 * s * rank;
    out.push_back(*layer);
  }
  LayerProfile q_up = dense(prefix + ".attention.q_up", s, t.q_rank, t.heads * (t.qk_nope + t.qk_rope), false);
  out.push_back(split(q_up, TensorSplit::Column, s * t.q_rank));
  LayerProfile kv_up = dense(prefix + ".attention.kv_up", s, t.kv_rank, t.heads * (t.qk_nope + t.v_head), false);
  out.push_back(split(kv_up, TensorSplit::Column, s * t.kv_rank));
  scores_and_context(out, prefix, t, t.heads * (t.qk_nope + t.qk_rope), t.heads * t.v_head,
                     t.heads * (t.qk_nope + t.qk_rope + t.v_head));
  out.push_back(split(dense(prefix + ".attention.output", s, t.heads * t.v_head, d, false), TensorSplit::Row, hidden));
  out.push_back(add_norm(prefix + ".attention.norm", t, s));
}

/// The feed-forward block's first product over `tokens` tokens per sample, to `width` (twice for SwiGLU's gate
/// and up projections), with its activation; split by columns.
LayerProfile expand(const std::string& name, const Transformer& t, double tokens, double width, double hidden) {
  const double inner = tokens * width;
  LayerProfile up = dense(name, tokens, t.width, (t.gated ? 2.0 : 1.0) * width, t.biases);
  if (t.gated) {
    // SwiGLU: SiLU of the gate (about 4 FLOPs) times the up projection; kept: both and their product. Its
    // kernel reads both and writes the product; backward reads the gradient and both, writes two. Eager:
    // SiLU (2; backward 3) and the product (3; backward reads the gradient and both, writes two: 5).
    up.forward_flops += 5.0 * inner;
    up.backward_flops += 10.0 * inner;
    up.activation_bytes = 3.0 * inner * kFloatBytes;
    with_traffic(up, t, {3.0 * inner, 5.0 * inner}, {5.0 * inner, 8.0 * inner});
    up.activation_function = {5.0 * inner, inner * kFloatBytes, up.forward_traffic};
  } else {
    // GELU: about 8 FLOPs per element; its input is kept too. The fused bias-GELU kernel reads and writes
    // each element; backward reads the gradient and the input, writes the gradient. Eager the same: the
    // bias is added in the product's epilogue.
    up.forward_flops += 8.0 * inner;
    up.backward_flops += 16.0 * inner;
    up.activation_bytes *= 2.0;
    with_traffic(up, 2.0 * inner, 3.0 * inner);
    up.activation_function = {8.0 * inner, inner * kFloatBytes, up.forward_traffic};
  }
  return split(with_bias_gradient(up, t), TensorSplit::Column, hidden);
}

/// The feed-forward block (GELU or SwiGLU), the first product split by columns, the second by rows, then
/// add & norm.
void feed_forward(std::vector<LayerProfile>& out, const std::string& prefix, const Transformer& t) {
  const double s = t.sequence;
  const double hidden = s * t.width;
  out.push_back(expand(prefix + ".ffn.up", t, s, t.feed_forward, hidden));
  LayerProfile down = dense(prefix + ".ffn.down", s, t.feed_forward, t.width, t.biases);
  out.push_back(split(with_bias_gradient(down, t), TensorSplit::Row, hidden));
  out.push_back(add_norm(prefix + ".ffn.norm", t, s));
}

/// A mixture of experts' feed-forward block (Shazeer et al. 2017; Mixtral; DeepSeek-V3), every expert a
/// SwiGLU block `expert_width` wide. The router scores each token against the experts (a d x E product, then
/// softmax and top-k: about 5 FLOPs per score) and is replicated over a tensor group; the shared experts run
/// on every token; the routed ones on the tokens sent to them: top_k x s products of an expert's size in all,
/// each expert's over its s x top_k / E tokens on average. Their tokens are gathered into expert order and
/// back: the gather reads and writes each routed copy (2 elements per value, backward the same), and the
/// weighted combination reads the copies and writes the sum (top_k + 1; backward the same). Experts split
/// over a tensor group as a dense block does; the group sums the block's output once.
void expert_feed_forward(std::vector<LayerProfile>& out, const std::string& prefix, const Transformer& t) {
  const double s = t.sequence;
  const double d = t.width;
  const double hidden = s * d;
  const double routed = s * t.top_k;
  const double experts = t.experts;
  LayerProfile router = dense(prefix + ".moe.router", s, d, experts, false);
  if (t.router_bias) router.parameters += experts;
  router.forward_flops += 5.0 * s * experts;
  router.backward_flops += 10.0 * s * experts;
  router.keeps_16_bits = true;
  out.push_back(router);
  if (t.shared_experts > 0) {
    const double width = t.shared_experts * t.expert_width;
    out.push_back(expand(prefix + ".moe.shared.up", t, s, width, 0.0));
    out.push_back(split(dense(prefix + ".moe.shared.down", s, width, d, t.biases), TensorSplit::Row, 0.0));
  }
  LayerProfile up = expand(prefix + ".moe.experts.up", t, routed, t.expert_width, hidden);
  LayerProfile down = split(dense(prefix + ".moe.experts.down", routed, t.expert_width, d, t.biases), TensorSplit::Row,
                            hidden);
  for (LayerProfile* layer : {&up, &down}) {
    layer->parameters *= experts;
    layer->active_share = t.top_k / experts;
    layer->gemm.rows = routed / experts;
    layer->exchange_elements = routed * d;
  }
  up.exchange = TokenExchange::Dispatch;
  down.exchange = TokenExchange::Combine;
  // The routed copies in expert order are the experts' input, kept for their weights' gradient.
  up.activation_bytes += routed * d * kFloatBytes;
  up.forward_traffic += 2.0 * routed * d * kFloatBytes;
  up.backward_traffic += 2.0 * routed * d * kFloatBytes;
  down.forward_flops += 2.0 * routed * d;
  down.backward_flops += 4.0 * routed * d;
  down.forward_traffic += (routed + s) * d * kFloatBytes;
  down.backward_traffic += (routed + s) * d * kFloatBytes;
  out.push_back(up);
  out.push_back(down);
  out.push_back(add_norm(prefix + ".ffn.norm", t, s));
}

/// One encoder or decoder layer: self-attention and a feed-forward block, each followed by add & norm
/// (post-norm as BERT; GPT-2 and Llama normalize first, which costs the same).
void block(std::vector<LayerProfile>& out, int index, const std::string& prefix, const Transformer& t) {
  const std::size_t first = out.size();
  if (t.kv_rank > 0) {
    latent_attention(out, prefix, t);
  } else if (t.window > 0 && index % 2 == 1) {
    Transformer full = t;
    full.window = 0;
    attention(out, prefix, full);
  } else {
    attention(out, prefix, t);
  }
  if (t.experts > 0 && index >= t.dense_layers) {
    expert_feed_forward(out, prefix, t);
  } else {
    feed_forward(out, prefix, t);
  }
  for (std::size_t i = first; i < out.size(); ++i) out[i].block = index;
}

/// The token table, split by vocabulary rows over a tensor group (each device looks up the tokens it holds,
/// then the group sums), and the learned position and type tables, replicated; a FLOP per element each
/// way for the lookup and one for the sum of the tables; the sum is what the backward pass keeps.
void embeddings(std::vector<LayerProfile>& out, const Transformer& t) {
  const double elements = t.sequence * t.width;
  out.push_back(split(whole_layer("embeddings.tokens", t.vocabulary * t.width, elements, elements,
                                  elements * kFloatBytes, OpClass::Elementwise),
                      TensorSplit::Row, elements));
  if (t.positions + t.types > 0) {
    out.push_back(whole_layer("embeddings.positions", (t.positions + t.types) * t.width, elements, elements, 0.0,
                              OpClass::Elementwise));
  }
}

/// A GPT shape's mixture of experts, checked: its keys need `experts`, which need `top_k` of at most them.
/// Experts are `dense_width` wide unless the shape says.
void take_experts(Transformer& t, const GptShape& shape, double dense_width) {
  if (shape.experts == 0) {
    if (shape.top_k > 0 || shape.shared_experts > 0 || shape.expert_width > 0) {
      throw ProfileError(shape.top_k > 0 ? "top_k" : shape.shared_experts > 0 ? "shared_experts" : "expert_width",
                         "describes a mixture of experts, and the model has no experts",
                         "give model.experts (the routed experts per block), or remove the key");
    }
    return;
  }
  if (shape.top_k == 0 || shape.top_k > shape.experts) {
    throw ProfileError(shape.top_k == 0 ? "experts" : "top_k",
                       shape.top_k == 0 ? fmt::format("{} experts and no top_k: how many experts each token is sent to",
                                                      shape.experts)
                                        : fmt::format("each token sent to {} of {} experts", shape.top_k, shape.experts),
                       fmt::format("give model.top_k from 1 to {} (Switch Transformer: 1, GShard and Mixtral: 2)",
                                   shape.experts));
  }
  t.experts = shape.experts, t.top_k = shape.top_k, t.shared_experts = shape.shared_experts;
  t.expert_width = shape.expert_width > 0 ? shape.expert_width : dense_width;
}

/// A decoder shape's layers, width, heads, vocabulary and sequence: at least 1 each, and heads that divide
/// the width.
void check_decoder_shape(const GptShape& shape) {
  if (shape.layers < 1 || shape.width < 1 || shape.heads < 1 || shape.vocabulary < 1 || shape.sequence < 1) {
    throw std::invalid_argument("a decoder shape needs layers, width, heads, vocabulary and sequence of at least 1");
  }
  if (shape.width % shape.heads != 0) {
    throw ProfileError("heads",
                       fmt::format("{} heads do not divide the hidden size ({}): each head is hidden_size / heads wide",
                                   shape.heads, shape.width),
                       "use a number of heads that divides model.hidden_size, or a hidden size divisible by the heads");
  }
}

TransformerShape shape_of(const Transformer& t) {
  return {t.layers,
          static_cast<int>(t.width),
          static_cast<int>(t.heads),
          static_cast<int>(t.key_value_heads),
          static_cast<int>(t.feed_forward),
          static_cast<int>(t.sequence),
          t.experts,
          t.top_k};
}

/// The head that turns the final hidden states into logits over the vocabulary, then softmax cross-entropy
/// (5 FLOPs per logit); split by vocabulary columns. `tied`: it reuses the token table (no parameters).
LayerProfile language_model_head(const Transformer& t, bool tied) {
  const double logits = t.sequence * t.vocabulary;
  const double head = 2.0 * t.sequence * t.width * t.vocabulary + 5.0 * logits;
  LayerProfile out =
      whole_layer("lm_head", tied ? 0.0 : t.width * t.vocabulary, head, 2.0 * head, logits * kFloatBytes);
  out.gemm = {t.sequence, t.vocabulary, t.width};
  out.keeps_16_bits = true;
  // Softmax cross-entropy reads the logits and writes the probabilities; backward reads them and writes
  // the logits' gradient. Eager, log-softmax then the loss: backward writes the loss's gradient over every
  // logit (1), then log-softmax's reads it and the output and writes (3).
  with_traffic(out, t, {2.0 * logits, 2.0 * logits}, {2.0 * logits, 4.0 * logits});
  return split(out, TensorSplit::Column, t.sequence * t.width);
}

/// A decoder's layers: the embeddings, the blocks, the final norm and the language-model head (`tied`: it
/// reuses the token table).
void decoder(ModelProfile& out, const Transformer& t, bool tied) {
  out.shape = shape_of(t);
  embeddings(out.layers, t);
  for (int layer = 0; layer < t.layers; ++layer) block(out.layers, layer, fmt::format("decoder.{}", layer), t);
  out.layers.push_back(add_norm("final_norm", t, t.sequence));
  out.layers.push_back(language_model_head(t, tied));
}

std::size_t sequence_or(const ProfileOptions& options, std::size_t fallback, std::size_t positions) {
  const std::size_t s = options.sequence == 0 ? fallback : options.sequence;
  if (s > positions) {
    throw ProfileError("sequence_length",
                       fmt::format("a sequence of {} tokens is longer than the model's {} positions", s, positions),
                       "use a shorter model.sequence_length");
  }
  return s;
}

/// The options' sequence (`fallback` when none, at most `positions`) and attention kernel.
void take_options(Transformer& t, const ProfileOptions& options, std::size_t fallback, std::size_t positions) {
  t.sequence = static_cast<double>(sequence_or(options, fallback, positions));
  t.fused_attention = options.attention == AttentionKernel::Fused;
  t.eager = options.kernels == KernelFusion::Eager;
}

/// Llama's blocks, which Mixtral and DeepSeek-V3 keep: rotary positions (no table), SwiGLU, no biases,
/// RMSNorm (one gain per channel).
void llama_blocks(Transformer& t) {
  t.positions = 0, t.types = 0;
  t.gated = true, t.biases = false, t.norm_parameters = 1;
}

}  // namespace

// Devlin et al. 2019: BERT-Base L=12, H=768, A=12 ("110M"), BERT-Large L=24, H=1024, A=16 ("340M"). The
// released checkpoints (BertModel with the pooler) hold 109,482,240 and 335,141,888 parameters.
ModelProfile bert_profile(const std::string& size, const ProfileOptions& options) {
  Transformer t;
  if (size == "base") {
    t.layers = 12, t.width = 768, t.heads = 12;
  } else if (size == "large") {
    t.layers = 24, t.width = 1024, t.heads = 16;
  } else {
    throw std::invalid_argument("BERT comes in base and large");
  }
  t.key_value_heads = t.heads, t.feed_forward = 4.0 * t.width;
  t.vocabulary = 30522, t.positions = 512, t.types = 2;
  take_options(t, options, 512, 512);
  ModelProfile out{"bert_" + size,
                   fmt::format("BERT-{} encoder with pooler ({} layers, {} wide, {} heads)",
                               size == "base" ? "Base" : "Large", t.layers, t.width, t.heads),
                   fmt::format("a sequence of {} tokens", t.sequence),
                   {},
                   {}};
  out.shape = shape_of(t);
  embeddings(out.layers, t);
  out.layers.push_back(add_norm("embeddings.norm", t, t.sequence));
  for (int layer = 0; layer < t.layers; ++layer) block(out.layers, layer, fmt::format("encoder.{}", layer), t);
  // The pooler: a dense tanh layer on the first token only.
  LayerProfile pooler = dense("pooler", 1.0, t.width, t.width);
  pooler.forward_flops += 4.0 * t.width;
  pooler.backward_flops += 8.0 * t.width;
  out.layers.push_back(pooler);
  return out;
}

// The heads BERT is pre-trained with (Devlin et al. 2019, section 3.1), as the released BertForPreTraining
// holds them: the masked-language-model head (a dense GELU transform, LayerNorm, then the vocabulary's logits
// through the token table, with their own biases) and the next-sentence classifier on the pooled first
// token. The masked-LM head runs on the masked positions only, 15% of the tokens (19 of 128, 77 of 512), as
// NVIDIA's DeepLearningExamples gathers them (modeling.py, BertPreTrainingHeads, since its 2022 release).
// BERT-Large with them: 336,226,108 parameters.
ModelProfile bert_pretraining_profile(const std::string& size, const ProfileOptions& options) {
  ModelProfile out = bert_profile(size, options);
  Transformer t;
  t.width = out.shape.width, t.vocabulary = 30522;
  t.sequence = std::round(0.15 * out.shape.sequence);
  t.eager = options.kernels == KernelFusion::Eager;
  const double s = t.sequence;
  const double d = t.width;
  LayerProfile transform = dense("mlm.transform", s, d, d);
  transform.forward_flops += 8.0 * s * d;
  transform.backward_flops += 16.0 * s * d;
  transform.activation_bytes *= 2.0;
  with_traffic(transform, 2.0 * s * d, 3.0 * s * d);
  out.layers.push_back(with_bias_gradient(transform, t));
  const double norm_flops = 5.0 * s * d;
  LayerProfile norm =
      whole_layer("mlm.norm", 2.0 * d, norm_flops, 2.0 * norm_flops, s * d * kFloatBytes, OpClass::Elementwise);
  // Eager, the gain and bias gradients are a second kernel reading the gradient and the input (2).
  out.layers.push_back(with_traffic(norm, t, {2.0 * s * d, 3.0 * s * d}, {2.0 * s * d, 5.0 * s * d}));
  LayerProfile logits = language_model_head(t, true);
  logits.parameters += t.vocabulary;
  out.layers.push_back(logits);
  out.layers.push_back(dense("nsp", 1.0, d, 2.0));
  out.name += "_pretraining";
  out.description += ", masked-LM head on the 15% masked tokens and next-sentence head";
  return out;
}

// Radford et al. 2019, and the released checkpoints: small 12 x 768 (124,439,808 parameters), medium
// 24 x 1024 (354,823,168), large 36 x 1280 (774,030,080), xl 48 x 1600 (1,557,611,200); 64-wide heads.
ModelProfile gpt2_profile(const std::string& size, const ProfileOptions& options) {
  Transformer t;
  if (size == "small") {
    t.layers = 12, t.width = 768;
  } else if (size == "medium") {
    t.layers = 24, t.width = 1024;
  } else if (size == "large") {
    t.layers = 36, t.width = 1280;
  } else if (size == "xl") {
    t.layers = 48, t.width = 1600;
  } else {
    throw std::invalid_argument("GPT-2 comes in small, medium, large and xl");
  }
  t.heads = t.width / 64;
  t.key_value_heads = t.heads, t.feed_forward = 4.0 * t.width;
  t.vocabulary = 50257, t.positions = 1024, t.types = 0;
  take_options(t, options, 1024, 1024);
  ModelProfile out{"gpt2_" + size,
                   fmt::format("GPT-2 {} decoder ({} layers, {} wide, {} heads), language-model head tied to the "
                               "embeddings",
                               size, t.layers, t.width, t.heads),
                   fmt::format("a sequence of {} tokens", t.sequence),
                   {},
                   {}};
  decoder(out, t, true);
  // Each layer's norm has 2d parameters; the first block's norm sits before attention, not after the
  // embeddings: the count is the same.
  return out;
}

// Brown et al. 2020, Table 2.1: GPT-3 175B has 96 layers, d = 12288, 96 heads of 128, a 2048-token context;
// dense attention (the sparse bands of the paper's alternating layers cost the same here).
ModelProfile gpt3_profile(const ProfileOptions& options) {
  Transformer t;
  t.layers = 96, t.width = 12288, t.heads = 96, t.key_value_heads = 96, t.feed_forward = 4.0 * 12288;
  t.vocabulary = 50257, t.positions = 2048, t.types = 0;
  take_options(t, options, 2048, 2048);
  ModelProfile out{"gpt3_175b",
                   "GPT-3 175B decoder (96 layers, 12288 wide, 96 heads), head tied to the embeddings",
                   fmt::format("a sequence of {} tokens", t.sequence),
                   {},
                   {}};
  decoder(out, t, true);
  return out;
}

// The released checkpoints' configurations: Llama 2 7B (32 layers, 4096 wide, 32 heads, feed-forward 11008,
// 6,738,415,616 parameters), Llama 2 70B (80, 8192, 64 heads and 8 key-value heads, 28672,
// 68,976,648,192), both with a 32,000-token vocabulary and 4096 positions; Llama 3.1 405B (126, 16384, 128
// heads and 8 key-value heads, 53248, vocabulary 128,256, 405,853,388,800), default sequence 8192.
ModelProfile llama_profile(const std::string& size, const ProfileOptions& options) {
  Transformer t;
  std::size_t positions = 4096;
  std::size_t sequence = 4096;
  if (size == "2_7b") {
    t.layers = 32, t.width = 4096, t.heads = 32, t.key_value_heads = 32, t.feed_forward = 11008;
    t.vocabulary = 32000;
  } else if (size == "2_70b") {
    t.layers = 80, t.width = 8192, t.heads = 64, t.key_value_heads = 8, t.feed_forward = 28672;
    t.vocabulary = 32000;
  } else if (size == "3_405b") {
    t.layers = 126, t.width = 16384, t.heads = 128, t.key_value_heads = 8, t.feed_forward = 53248;
    t.vocabulary = 128256;
    positions = 131072, sequence = 8192;
  } else {
    throw std::invalid_argument("the Llama profiles are 2_7b, 2_70b and 3_405b");
  }
  llama_blocks(t);
  take_options(t, options, sequence, positions);
  const std::string name = "llama" + size;
  ModelProfile out{name,
                   fmt::format("Llama {} decoder ({} layers, {} wide, {} heads, {} key-value heads), SwiGLU, "
                               "untied head",
                               size.substr(0, 1) + " " + size.substr(2), t.layers, t.width, t.heads, t.key_value_heads),
                   fmt::format("a sequence of {} tokens", t.sequence),
                   {},
                   {}};
  decoder(out, t, false);
  return out;
}

// Jiang et al. 2024 and the released configurations: Mixtral 8x7B (32 layers, 4096 wide, 32 heads and 8
// key-value heads, experts 14336 wide, vocabulary 32,000, 32,768 positions; 46,702,792,704 parameters of
// which 12,879,925,248 pass each token: "46.7B total, 12.9B active") and 8x22B (56, 6144, 48 and 8, 16384,
// 32,768, 65,536; 140,630,071,296 and 39,161,468,928: "141B, 39B"); 8 experts, 2 per token, no shared ones.
// Default sequence 4096, as the Llama 2 profiles.
ModelProfile mixtral_profile(const std::string& size, const ProfileOptions& options) {
  Transformer t;
  std::size_t positions = 32768;
  if (size == "8x7b") {
    t.layers = 32, t.width = 4096, t.heads = 32, t.key_value_heads = 8, t.expert_width = 14336;
    t.vocabulary = 32000;
  } else if (size == "8x22b") {
    t.layers = 56, t.width = 6144, t.heads = 48, t.key_value_heads = 8, t.expert_width = 16384;
    t.vocabulary = 32768;
    positions = 65536;
  } else {
    throw std::invalid_argument("the Mixtral profiles are 8x7b and 8x22b");
  }
  t.feed_forward = t.expert_width, t.experts = 8, t.top_k = 2;
  llama_blocks(t);
  take_options(t, options, 4096, positions);
  ModelProfile out{"mixtral_" + size,
                   fmt::format("Mixtral {} mixture of experts ({} layers, {} wide, {} heads, {} key-value heads; 8 "
                               "SwiGLU experts {} wide, 2 per token), untied head",
                               size, t.layers, t.width, t.heads, t.key_value_heads, t.expert_width),
                   fmt::format("a sequence of {} tokens", t.sequence),
                   {},
                   {}};
  decoder(out, t, false);
  return out;
}

// DeepSeek-AI 2024 (DeepSeek-V3 technical report, section 4.2) and the released configuration: 61 layers,
// 7168 wide, 128 heads of multi-head latent attention (query latent 1536, key-value latent 512, heads of 128
// + 64 rotary for the scores and 128 for the values); the first 3 blocks dense (SwiGLU 18432 wide), the
// other 58 a router with a bias per expert over 256 routed SwiGLU experts 2048 wide, 8 per token, beside 1
// shared expert; vocabulary 129,280, untied head, 163,840 positions. 671,026,419,200 parameters ("671B"; the
// multi-token prediction module the checkpoint adds is not part of it), 37,552,297,472 passing each token
// counting the token table's rows, 36,625,618,432 without it ("37B activated", rounded). Default sequence
// 4096, the pre-training's.
ModelProfile deepseek_v3_profile(const ProfileOptions& options) {
  Transformer t;
  t.layers = 61, t.width = 7168, t.heads = 128, t.key_value_heads = 128;
  t.q_rank = 1536, t.kv_rank = 512, t.qk_nope = 128, t.qk_rope = 64, t.v_head = 128;
  t.feed_forward = 18432, t.dense_layers = 3;
  t.experts = 256, t.top_k = 8, t.shared_experts = 1, t.expert_width = 2048, t.router_bias = true;
  t.vocabulary = 129280;
  llama_blocks(t);
  take_options(t, options, 4096, 163840);
  ModelProfile out{"deepseek_v3",
                   "DeepSeek-V3 mixture of experts (61 layers, 7168 wide, 128 heads of latent attention; 3 dense "
                   "blocks, then 256 experts 2048 wide, 8 per token, and 1 shared), untied head",
                   fmt::format("a sequence of {} tokens", t.sequence),
                   {},
                   {}};
  decoder(out, t, false);
  // Tensor splits divide the experts' width, not the dense blocks'.
  out.shape.feed_forward = static_cast<int>(t.expert_width);
  return out;
}

// Qwen3-235B-A22B (Qwen team 2025, Qwen3 technical report; the released config.json): 94 layers, 4096 wide,
// 64 query heads of 128 (attention 8192 wide) over 4 key-value heads, each head's query and key
// RMS-normalized, every block's feed-forward part 128 SwiGLU experts 1536 wide, 8 a token, no shared
// expert, vocabulary 151,936, untied head: 235,093,634,560 parameters, 22,190,763,520 a token ("235B",
// "22B activated").
ModelProfile qwen3_moe_profile(const ProfileOptions& options) {
  Transformer t;
  t.layers = 94, t.width = 4096, t.heads = 64, t.key_value_heads = 4, t.head_dim = 128, t.qk_norm = true;
  t.experts = 128, t.top_k = 8, t.expert_width = 1536, t.feed_forward = 1536;
  t.vocabulary = 151936;
  llama_blocks(t);
  take_options(t, options, 4096, 40960);
  ModelProfile out{"qwen3_235b_a22b",
                   "Qwen3-235B-A22B mixture of experts (94 layers, 4096 wide, 64 heads of 128 over 4 key-value heads; "
                   "128 experts 1536 wide, 8 per token), untied head",
                   fmt::format("a sequence of {} tokens", t.sequence),
                   {},
                   {}};
  decoder(out, t, false);
  return out;
}

// OpenAI 2025 (gpt-oss-120b model card, Table 1; the gpt-oss repository's ModelConfig; Megatron-Bridge's
// GPTOSSProvider120B): 36 layers, 2880 wide, 64 query heads of 64 (attention 4096 wide) over 8 key-value heads
// with a learned sink logit each, every other block (the first among them) attending to the last 128 tokens
// only; every block's feed-forward part 128 experts 2880 wide (a gated linear unit as SwiGLU, clamped), 4 a
// token, no shared expert; biases on every product and the router; RMSNorm; vocabulary 201,088, untied head:
// 116,829,156,672 parameters ("116.83B"), 5,711,982,912 a token counting the token table's rows,
// 5,132,849,472 without them ("5.13B active", which counts the unembedding and not the embedding).
ModelProfile gpt_oss_profile(const ProfileOptions& options) {
  Transformer t;
  t.layers = 36, t.width = 2880, t.heads = 64, t.key_value_heads = 8, t.head_dim = 64;
  t.experts = 128, t.top_k = 4, t.expert_width = 2880, t.feed_forward = 2880;
  t.vocabulary = 201088;
  llama_blocks(t);
  t.biases = true, t.router_bias = true, t.window = 128, t.attention_sinks = true;
  take_options(t, options, 4096, 131072);
  ModelProfile out{"gpt_oss_120b",
                   "gpt-oss-120b mixture of experts (36 layers, 2880 wide, 64 heads of 64 over 8 key-value heads, "
                   "every other block a 128-token window; 128 experts 2880 wide, 4 per token), untied head",
                   fmt::format("a sequence of {} tokens", t.sequence),
                   {},
                   {}};
  decoder(out, t, false);
  return out;
}

ModelProfile gpt_profile(const GptShape& shape) {
  check_decoder_shape(shape);
  Transformer t;
  t.layers = shape.layers, t.width = shape.width, t.heads = shape.heads, t.key_value_heads = shape.heads;
  t.feed_forward = 4.0 * shape.width;
  t.vocabulary = shape.vocabulary, t.positions = shape.sequence, t.types = 0, t.sequence = shape.sequence;
  t.fused_attention = shape.attention == AttentionKernel::Fused;
  t.eager = shape.kernels == KernelFusion::Eager;
  take_experts(t, shape, 4.0 * shape.width);
  ModelProfile out{"gpt",
                   fmt::format("GPT decoder ({} layers, {} wide, {} heads, vocabulary {}), head tied to the embeddings",
                               shape.layers, shape.width, shape.heads, shape.vocabulary),
                   fmt::format("a sequence of {} tokens", shape.sequence),
                   {},
                   {}};
  decoder(out, t, true);
  if (t.experts > 0) out.shape.feed_forward = static_cast<int>(t.expert_width);
  return out;
}

ModelProfile llama_profile(const LlamaShape& shape) {
  const GptShape& g = shape.base;
  check_decoder_shape(g);
  if (shape.feed_forward < 1) throw std::invalid_argument("a Llama shape needs a feed-forward width of at least 1");
  const int key_values = shape.key_value_heads == 0 ? g.heads : shape.key_value_heads;
  if (g.heads % key_values != 0) {
    throw ProfileError("key_value_heads",
                       fmt::format("{} key-value heads do not divide the {} heads: each serves heads / key_value_heads "
                                   "query heads",
                                   key_values, g.heads),
                       "use a number of key-value heads that divides model.heads");
  }
  Transformer t;
  t.layers = g.layers, t.width = g.width, t.heads = g.heads, t.key_value_heads = key_values;
  t.feed_forward = shape.feed_forward, t.vocabulary = g.vocabulary, t.sequence = g.sequence;
  t.head_dim = shape.head_dim, t.qk_norm = shape.qk_norm;
  llama_blocks(t);
  t.fused_attention = g.attention == AttentionKernel::Fused;
  t.eager = g.kernels == KernelFusion::Eager;
  take_experts(t, g, shape.feed_forward);
  ModelProfile out{"llama",
                   fmt::format("Llama decoder ({} layers, {} wide, {} heads, {} key-value heads, vocabulary {}), "
                               "SwiGLU, untied head",
                               g.layers, g.width, g.heads, key_values, g.vocabulary),
                   fmt::format("a sequence of {} tokens", g.sequence),
                   {},
                   {}};
  decoder(out, t, false);
  if (t.experts > 0) out.shape.feed_forward = static_cast<int>(t.expert_width);
  return out;
}

}  // namespace dtsim::models
