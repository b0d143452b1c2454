#pragma once
// A seeded synthetic binary classification problem with a known best accuracy.

#include "models/dataset.hpp"

#include <cstdint>

namespace dtsim::models {

struct SyntheticClassificationParams {
  std::size_t samples = 0;
  std::size_t features = 0;
  double validation_fraction = 0.2;
  /// Standard deviation of Gaussian noise added to the true logit, which itself has unit variance.
  /// The best achievable accuracy is 1 - atan(label_noise) / pi.
  double label_noise = 0.0;
};

/// x ~ N(0, I); a hidden direction u (unit norm, drawn once); y = [u.x + label_noise * e > 0], e ~ N(0, 1).
/// The first samples form the training part, the rest (validation_fraction of them, rounded) validation.
/// Everything comes from the stream "data/synthetic_classification" of `seed`.
SplitDataset make_synthetic_classification(const SyntheticClassificationParams& params, std::uint64_t seed);

/// Number of validation samples `make_synthetic_classification` will produce.
std::size_t validation_samples(const SyntheticClassificationParams& params);

}  // namespace dtsim::models
