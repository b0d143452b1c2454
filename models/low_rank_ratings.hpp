#pragma once
// A seeded ratings matrix of known low rank, observed at random (user, item) cells.

#include "models/dataset.hpp"

#include <cstdint>

namespace dtsim::models {

struct LowRankRatingsParams {
  std::size_t samples = 0;  ///< observed ratings
  std::size_t users = 0;
  std::size_t items = 0;
  std::size_t rank = 4;
  double validation_fraction = 0.2;
  double noise = 0.1;  ///< standard deviation of the noise added to each rating
};

/// Hidden factors u_a, v_b ~ N(0, I / sqrt(rank)) per user a and item b; each sample picks a user and an
/// item uniformly and rates it 3 + u_a.v_b + noise * e, e ~ N(0, 1). Features are the two indices
/// [user, item] (exact in float below 2^24); the label is the rating. The first samples train, the last
/// validation_fraction of them (rounded) validate. Everything comes from the stream "data/low_rank_ratings".
SplitDataset make_low_rank_ratings(const LowRankRatingsParams& params, std::uint64_t seed);

}  // namespace dtsim::models
