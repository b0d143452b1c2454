#include "models/model_profile.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace dtsim::models {
namespace {

constexpr double kFloatBytes = 4.0;

struct Transformer {
  int layers = 0;
  double width = 0;      ///< d
  double heads = 0;
  double vocabulary = 0;
  double positions = 0;  ///< learned position embeddings
  double types = 0;      ///< token-type embeddings (BERT's segments)
  double sequence = 0;   ///< tokens per sample
};

/// A matrix product layer: `in` x `out` weights and biases applied to every token.
LayerProfile dense(const std::string& name, double tokens, double in, double out) {
  const double forward = 2.0 * tokens * in * out + tokens * out;
  return {name, in * out + out, forward, 2.0 * forward, tokens * out * kFloatBytes};
}

/// Residual addition then layer normalization (about 9 FLOPs per element; gain and bias per channel).
LayerProfile add_norm(const std::string& name, double tokens, double width) {
  const double flops = 9.0 * tokens * width;
  return {name, 2.0 * width, flops, 2.0 * flops, tokens * width * kFloatBytes};
}

/// One encoder or decoder layer: self-attention and a 4d feed-forward block, each followed by add & norm
/// (post-norm as BERT; GPT-2 normalizes first, which costs the same).
void block(std::vector<LayerProfile>& out, const std::string& prefix, const Transformer& t) {
  const double s = t.sequence;
  const double d = t.width;
  out.push_back(dense(prefix + ".attention.qkv", s, d, 3.0 * d));
  // Scores Q K^T over all heads (2 s^2 d), softmax (5 per score), and the weighted sum of values (2 s^2 d);
  // kept: the scores and the probabilities, then the context.
  const double scores = t.heads * s * s;
  const double score_flops = 2.0 * s * s * d + 5.0 * scores;
  out.push_back({prefix + ".attention.scores", 0.0, score_flops, 2.0 * score_flops, 2.0 * scores * kFloatBytes});
  const double context_flops = 2.0 * s * s * d;
  out.push_back({prefix + ".attention.context", 0.0, context_flops, 2.0 * context_flops, s * d * kFloatBytes});
  out.push_back(dense(prefix + ".attention.output", s, d, d));
  out.push_back(add_norm(prefix + ".attention.norm", s, d));
  LayerProfile up = dense(prefix + ".ffn.up", s, d, 4.0 * d);
  // GELU: about 8 FLOPs per element; its input is kept too.
  up.forward_flops += 8.0 * s * 4.0 * d;
  up.backward_flops += 16.0 * s * 4.0 * d;
  up.activation_bytes *= 2.0;
  out.push_back(up);
  out.push_back(dense(prefix + ".ffn.down", s, 4.0 * d, d));
  out.push_back(add_norm(prefix + ".ffn.norm", s, d));
}

LayerProfile embeddings(const Transformer& t) {
  // Table lookups and the sum of token, position (and type) vectors: about 2 FLOPs per element each way.
  const double elements = t.sequence * t.width;
  return {"embeddings", (t.vocabulary + t.positions + t.types) * t.width, 2.0 * elements, 2.0 * elements,
          elements * kFloatBytes};
}

std::size_t sequence_or(const ProfileOptions& options, std::size_t fallback, std::size_t positions) {
  const std::size_t s = options.sequence == 0 ? fallback : options.sequence;
  if (s > positions) {
    throw std::invalid_argument(fmt::format("a sequence of {} tokens is longer than the model's {} positions", s, positions));
  }
  return s;
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
  t.vocabulary = 30522, t.positions = 512, t.types = 2;
  t.sequence = static_cast<double>(sequence_or(options, 512, 512));
  ModelProfile out{"bert_" + size, fmt::format("BERT-{} encoder with pooler ({} layers, {} wide, {} heads)",
                                                 size == "base" ? "Base" : "Large", t.layers, t.width, t.heads),
                   fmt::format("a sequence of {} tokens", t.sequence), {}};
  out.layers.push_back(embeddings(t));
  out.layers.push_back(add_norm("embeddings.norm", t.sequence, t.width));
  for (int layer = 0; layer < t.layers; ++layer) block(out.layers, fmt::format("encoder.{}", layer), t);
  // The pooler: a dense tanh layer on the first token only.
  LayerProfile pooler = dense("pooler", 1.0, t.width, t.width);
  pooler.forward_flops += 4.0 * t.width;
  pooler.backward_flops += 8.0 * t.width;
  out.layers.push_back(pooler);
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
  t.vocabulary = 50257, t.positions = 1024, t.types = 0;
  t.sequence = static_cast<double>(sequence_or(options, 1024, 1024));
  ModelProfile out{"gpt2_" + size,
                   fmt::format("GPT-2 {} decoder ({} layers, {} wide, {} heads), language-model head tied to the "
                               "embeddings",
                               size, t.layers, t.width, t.heads),
                   fmt::format("a sequence of {} tokens", t.sequence), {}};
  out.layers.push_back(embeddings(t));
  for (int layer = 0; layer < t.layers; ++layer) block(out.layers, fmt::format("decoder.{}", layer), t);
  out.layers.push_back(add_norm("final_norm", t.sequence, t.width));
  // The head reuses the token embeddings (no parameters of its own): logits for every token, then softmax
  // cross-entropy (5 FLOPs per logit).
  const double logits = t.sequence * t.vocabulary;
  const double head = 2.0 * t.sequence * t.width * t.vocabulary + 5.0 * logits;
  out.layers.push_back({"lm_head", 0.0, head, 2.0 * head, logits * kFloatBytes});
  // Each layer's norm has 2d parameters; the first block's norm sits before attention, not after the
  // embeddings: the count is the same.
  return out;
}

}  // namespace dtsim::models
