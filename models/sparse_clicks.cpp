#include "models/sparse_clicks.hpp"

#include "sim/core/rng.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace dtsim::models {

SplitDataset make_sparse_clicks(const SparseClicksParams& params, std::uint64_t seed) {
  if (params.features == 0 || params.active == 0 || params.active > params.features) {
    throw std::invalid_argument("sparse_clicks: needs 1 to features active features per sample");
  }
  core::RandomEngine engine = core::random_stream(seed, "data/sparse_clicks");
  std::vector<double> weights(params.features);
  for (double& w : weights) w = core::standard_normal(engine);
  std::vector<double> cdf(params.features);
  double total = 0.0;
  for (std::size_t j = 0; j < params.features; ++j) cdf[j] = total += 1.0 / static_cast<double>(j + 1);
  for (double& value : cdf) value /= total;

  const auto validation =
      held_out(params.samples, params.validation_fraction);
  const std::size_t train = params.samples - validation;
  SplitDataset out;
  for (Dataset* part : {&out.train, &out.validation}) {
    const std::size_t count = part == &out.train ? train : validation;
    part->features = FeatureMatrix::Zero(static_cast<Eigen::Index>(count), static_cast<Eigen::Index>(params.features));
    part->labels.resize(static_cast<Eigen::Index>(count));
    part->classes = 2;
  }
  const double scale = 1.0 / std::sqrt(static_cast<double>(params.active));
  std::vector<std::size_t> chosen;
  for (std::size_t i = 0; i < params.samples; ++i) {
    Dataset& part = i < train ? out.train : out.validation;
    const auto row = static_cast<Eigen::Index>(i < train ? i : i - train);
    chosen.clear();
    while (chosen.size() < params.active) {
      const auto it = std::upper_bound(cdf.begin(), cdf.end(), core::uniform01(engine));
      const std::size_t id = std::min(static_cast<std::size_t>(it - cdf.begin()), params.features - 1);
      if (std::find(chosen.begin(), chosen.end(), id) == chosen.end()) chosen.push_back(id);
    }
    double logit = -2.0;
    for (const std::size_t id : chosen) {
      part.features(row, static_cast<Eigen::Index>(id)) = 1.0F;
      logit += scale * weights[id];
    }
    part.labels[row] = core::uniform01(engine) < 1.0 / (1.0 + std::exp(-logit)) ? 1.0F : 0.0F;
  }
  return out;
}

}  // namespace dtsim::models
