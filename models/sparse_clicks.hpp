#pragma once
// Seeded click-through data: high-dimensional binary features, few of them active per sample.

#include "models/dataset.hpp"

#include <cstdint>

namespace dtsim::models {

struct SparseClicksParams {
  std::size_t samples = 0;
  std::size_t features = 0;  ///< one-hot feature space (ads, users, contexts hashed into ids)
  std::size_t active = 8;    ///< distinct features set to 1 in each sample
  double validation_fraction = 0.2;
};

/// Feature ids are drawn with Zipf(1) popularity (id 0 the most common), `active` distinct ones per sample;
/// a hidden weight w_j ~ N(0, 1) per feature sets the click probability sigmoid(-2 + sum of the active
/// w_j / sqrt(active)), and the label is a Bernoulli draw of it (1 = click): a base rate near 15%,
/// learnable by a linear model up to the Bernoulli noise. Features are stored densely (samples x features
/// floats of 0 and 1). The first samples train, the last validation_fraction (rounded) validate; every
/// number comes from the stream "data/sparse_clicks" of `seed`.
SplitDataset make_sparse_clicks(const SparseClicksParams& params, std::uint64_t seed);

}  // namespace dtsim::models
