#include "models/model_plugin.hpp"

namespace dtsim::models {

core::SchemaNode dimensions_parameter() { return core::integer("dimensions", 1, 100'000, "embedding size").fallback("8"); }

core::SchemaNode experts_parameter() {
  return core::integer("experts", 1, 4096,
                       "a mixture of experts: its routed experts (moe: MLP experts, at least 2; profile:gpt and "
                       "profile:llama: every block's feed-forward part becomes this many experts of the dense "
                       "block's kind, GELU for profile:gpt, SwiGLU for profile:llama; absent there: a dense model)");
}

core::SchemaNode top_k_parameter() {
  return core::integer("top_k", 1, 4096, "with experts: how many of them each token (moe: each sample) is routed to");
}

core::SchemaNode expert_width_parameter() {
  return core::integer("expert_width", 1, 1'048'576,
                       "with experts: each expert's inner width; absent: the dense block's (4 x hidden_size for "
                       "profile:gpt, ffn_hidden_size for profile:llama, width for moe)");
}

core::SchemaNode activation_parameter() {
  return core::choice_of("activation", "activation", "hidden-layer activation",
                         {{"relu", "max(0, x)"}, {"tanh", "hyperbolic tangent"}})
      .fallback("relu");
}

std::string model_names(const ModelRegistry& registry, const std::function<bool(const ModelPlugin&)>& keep) {
  std::vector<std::string> names;
  for (const std::string& name : registry.registration_order()) {
    if (keep(registry.find(name).factory)) names.push_back(name);
  }
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return out;
}

}  // namespace dtsim::models
