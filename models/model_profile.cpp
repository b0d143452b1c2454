#include "models/model_profile.hpp"

#include "models/sequence_bins.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <stdexcept>

namespace dtsim::models {
namespace {

double sum(const std::vector<LayerProfile>& layers, double LayerProfile::*field) {
  return std::accumulate(layers.begin(), layers.end(), 0.0,
                         [&](double total, const LayerProfile& layer) { return total + layer.*field; });
}

using Builder = std::function<ModelProfile(const ProfileOptions&)>;

const std::map<std::string, Builder>& builders() {
  static const std::map<std::string, Builder> all{
      {"resnet18", [](const ProfileOptions&) { return resnet18_profile(); }},
      {"resnet50", [](const ProfileOptions&) { return resnet50_profile(); }},
      {"bert_base", [](const ProfileOptions& o) { return bert_profile("base", o); }},
      {"bert_large", [](const ProfileOptions& o) { return bert_profile("large", o); }},
      {"bert_base_pretraining", [](const ProfileOptions& o) { return bert_pretraining_profile("base", o); }},
      {"bert_large_pretraining", [](const ProfileOptions& o) { return bert_pretraining_profile("large", o); }},
      {"gpt2_small", [](const ProfileOptions& o) { return gpt2_profile("small", o); }},
      {"gpt2_medium", [](const ProfileOptions& o) { return gpt2_profile("medium", o); }},
      {"gpt2_large", [](const ProfileOptions& o) { return gpt2_profile("large", o); }},
      {"gpt2_xl", [](const ProfileOptions& o) { return gpt2_profile("xl", o); }},
      {"gpt3_175b", [](const ProfileOptions& o) { return gpt3_profile(o); }},
      {"llama2_7b", [](const ProfileOptions& o) { return llama_profile("2_7b", o); }},
      {"llama2_70b", [](const ProfileOptions& o) { return llama_profile("2_70b", o); }},
      {"llama3_405b", [](const ProfileOptions& o) { return llama_profile("3_405b", o); }},
      {"mixtral_8x7b", [](const ProfileOptions& o) { return mixtral_profile("8x7b", o); }},
      {"mixtral_8x22b", [](const ProfileOptions& o) { return mixtral_profile("8x22b", o); }},
      {"deepseek_v3", [](const ProfileOptions& o) { return deepseek_v3_profile(o); }},
      {"qwen3_235b_a22b", [](const ProfileOptions& o) { return qwen3_moe_profile(o); }},
      {"gpt_oss_120b", [](const ProfileOptions& o) { return gpt_oss_profile(o); }},
  };
  return all;
}

}  // namespace

double ModelProfile::parameters() const { return sum(layers, &LayerProfile::parameters); }
double ModelProfile::active_parameters() const {
  return std::accumulate(layers.begin(), layers.end(), 0.0, [](double total, const LayerProfile& layer) {
    return total + layer.parameters * layer.active_share;
  });
}
double ModelProfile::forward_flops() const { return sum(layers, &LayerProfile::forward_flops); }
double ModelProfile::training_flops() const {
  return forward_flops() + sum(layers, &LayerProfile::backward_flops);
}
double ModelProfile::activation_bytes() const { return sum(layers, &LayerProfile::activation_bytes); }
double ModelProfile::peak_activation_bytes() const {
  return std::accumulate(layers.begin(), layers.end(), 0.0, [](double total, const LayerProfile& layer) {
    return total + layer.activation_bytes * layer.activation_peak_ratio;
  });
}
double ModelProfile::training_bytes(std::size_t batch, bool half_activations) const {
  const double activations = half_activations ? 0.5 * activation_bytes() : activation_bytes();
  return 3.0 * activations * static_cast<double>(batch) + 16.0 * parameters();
}

ModelProfile find_profile(const std::string& name, const ProfileOptions& options) {
  const auto it = builders().find(name);
  if (it == builders().end()) throw std::invalid_argument("no model profile called '" + name + "'");
  if (options.sequence_bins.empty()) return it->second(options);
  return binned_profile(
      [&](std::size_t sequence) {
        ProfileOptions one = options;
        one.sequence = sequence == 0 ? options.sequence : sequence;
        one.sequence_bins.clear();
        return it->second(one);
      },
      options.sequence_bins);
}

std::vector<std::string> profile_names() {
  std::vector<std::string> out;
  for (const auto& [name, builder] : builders()) out.push_back(name);
  return out;
}

}  // namespace dtsim::models
