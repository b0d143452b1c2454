#include "models/gradient_buckets.hpp"

#include <stdexcept>

namespace dtsim::models {

std::vector<GradientBucket> gradient_buckets(const ModelProfile& profile, double bucket_bytes, int bytes_per_value) {
  if (bucket_bytes <= 0.0 || bytes_per_value <= 0) throw std::invalid_argument("a bucket holds some bytes");
  std::vector<GradientBucket> out;
  GradientBucket open{profile.layers.size(), profile.layers.size(), 0.0};
  for (std::size_t layer = profile.layers.size(); layer-- > 0;) {
    open.first = layer;
    open.parameters += profile.layers[layer].parameters;
    if (open.parameters * bytes_per_value >= bucket_bytes) {
      out.push_back(open);
      open = {layer, layer, 0.0};
    }
  }
  if (open.first < open.end) out.push_back(open);
  return out;
}

}  // namespace dtsim::models
