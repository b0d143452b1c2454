#include "models/sequence_bins.hpp"

#include <fmt/format.h>

#include <numeric>

namespace dtsim::models {
namespace {

/// More bins than this would build a layer table per bin for nothing a data loader does.
constexpr std::size_t kMostBins = 1024;

void check_bins(std::size_t longest, const std::vector<double>& weights) {
  if (weights.size() > kMostBins) {
    throw ProfileError("sequence_bins", fmt::format("{} bins are more than the {} dtsim takes", weights.size(), kMostBins),
                       "group the lengths into fewer, wider bins (LDDL's phase 2: 8 bins of 64 tokens)");
  }
  if (weights.empty() || longest % weights.size() != 0) {
    throw ProfileError("sequence_bins",
                       fmt::format("{} bins do not divide a sequence of {} tokens into equal bins", weights.size(),
                                   longest),
                       "give as many weights as equal bins of model.sequence_length (64-token bins of 512: 8)");
  }
  if (std::accumulate(weights.begin(), weights.end(), 0.0) <= 0.0) {
    throw ProfileError("sequence_bins", "the bins weigh nothing: every weight is 0",
                       "give each bin its share of the samples, at least one above 0");
  }
}

void clear_costs(LayerProfile& layer) {
  layer.forward_flops = layer.backward_flops = layer.activation_bytes = 0.0;
  layer.forward_traffic = layer.backward_traffic = layer.tensor_sum_elements = 0.0;
  layer.gemm.rows = 0.0;
}

/// Adds `w` times `from`'s costs per sample to `into`'s.
void add_weighted(LayerProfile& into, const LayerProfile& from, double w) {
  into.forward_flops += w * from.forward_flops;
  into.backward_flops += w * from.backward_flops;
  into.activation_bytes += w * from.activation_bytes;
  into.forward_traffic += w * from.forward_traffic;
  into.backward_traffic += w * from.backward_traffic;
  into.tensor_sum_elements += w * from.tensor_sum_elements;
  into.gemm.rows += w * from.gemm.rows;
}

}  // namespace

double mean_padded_length(std::size_t longest, const std::vector<double>& weights) {
  check_bins(longest, weights);
  const double bin = static_cast<double>(longest / weights.size());
  double sum = 0.0;
  for (std::size_t i = 0; i < weights.size(); ++i) sum += weights[i] * bin * static_cast<double>(i + 1);
  return sum / std::accumulate(weights.begin(), weights.end(), 0.0);
}

ModelProfile binned_profile(const std::function<ModelProfile(std::size_t sequence)>& build,
                            const std::vector<double>& weights) {
  const ModelProfile longest = build(0);
  const auto length = static_cast<std::size_t>(longest.shape.sequence);
  check_bins(length, weights);
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  // The longest table keeps the model's parameters and structure; its costs become the bins' mean.
  ModelProfile out = longest;
  for (LayerProfile& layer : out.layers) clear_costs(layer);
  const std::size_t bin = length / weights.size();
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] <= 0.0) continue;
    const ModelProfile padded = (i + 1 == weights.size()) ? longest : build(bin * (i + 1));
    for (std::size_t j = 0; j < out.layers.size(); ++j) {
      add_weighted(out.layers[j], padded.layers[j], weights[i] / total);
    }
  }
  for (std::size_t j = 0; j < out.layers.size(); ++j) {
    const double mean = out.layers[j].activation_bytes;
    out.layers[j].activation_peak_ratio = mean > 0.0 ? longest.layers[j].activation_bytes / mean : 1.0;
  }
  out.sample = fmt::format("{}, padded to {} bins of {} tokens (mean {:.4g})", longest.sample, weights.size(), bin,
                           mean_padded_length(length, weights));
  return out;
}

}  // namespace dtsim::models
