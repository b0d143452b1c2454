#pragma once
// Seeded Gaussian clusters: a multi-class problem whose difficulty the spread of the centres sets.

#include "models/dataset.hpp"

#include <cstdint>

namespace dtsim::models {

struct GaussianBlobsParams {
  std::size_t samples = 0;
  std::size_t features = 0;
  std::size_t classes = 3;
  double validation_fraction = 0.2;
  double center_spread = 2.0;  ///< standard deviation of the centres around 0, per feature
};

/// One centre per class, c_k ~ N(0, center_spread^2 I); each sample draws its class uniformly and
/// x = c_y + e, e ~ N(0, I). The first samples train, the last validation_fraction of them (rounded)
/// validate. Everything comes from the stream "data/gaussian_blobs" of `seed`.
SplitDataset make_gaussian_blobs(const GaussianBlobsParams& params, std::uint64_t seed);

}  // namespace dtsim::models
