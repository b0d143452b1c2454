#include "models/synthetic_classification.hpp"

#include "sim/core/rng.hpp"

#include <cmath>

namespace dtsim::models {

std::size_t validation_samples(const SyntheticClassificationParams& params) {
  return held_out(params.samples, params.validation_fraction);
}

SplitDataset make_synthetic_classification(const SyntheticClassificationParams& params, std::uint64_t seed) {
  core::RandomEngine engine = core::random_stream(seed, "data/synthetic_classification");
  const auto features = static_cast<Eigen::Index>(params.features);
  Eigen::VectorXd direction(features);
  for (Eigen::Index j = 0; j < features; ++j) direction[j] = core::standard_normal(engine);
  direction /= direction.norm();

  const std::size_t validation = validation_samples(params);
  const std::size_t train = params.samples - validation;
  SplitDataset out;
  out.train.features.resize(static_cast<Eigen::Index>(train), features);
  out.train.labels.resize(static_cast<Eigen::Index>(train));
  out.validation.features.resize(static_cast<Eigen::Index>(validation), features);
  out.validation.labels.resize(static_cast<Eigen::Index>(validation));

  for (std::size_t i = 0; i < params.samples; ++i) {
    Dataset& part = i < train ? out.train : out.validation;
    const auto row = static_cast<Eigen::Index>(i < train ? i : i - train);
    double logit = 0.0;
    for (Eigen::Index j = 0; j < features; ++j) {
      const double x = core::standard_normal(engine);
      part.features(row, j) = static_cast<float>(x);
      logit += direction[j] * x;
    }
    logit += params.label_noise * core::standard_normal(engine);
    part.labels[row] = logit > 0.0 ? 1.0F : 0.0F;
  }
  return out;
}

}  // namespace dtsim::models
