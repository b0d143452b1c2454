#include "models/low_rank_ratings.hpp"

#include "sim/core/rng.hpp"

#include <cmath>
#include <stdexcept>

namespace dtsim::models {

SplitDataset make_low_rank_ratings(const LowRankRatingsParams& params, std::uint64_t seed) {
  constexpr std::size_t kExactInFloat = std::size_t{1} << 24U;
  if (params.users == 0 || params.items == 0 || params.rank == 0 || params.users > kExactInFloat ||
      params.items > kExactInFloat) {
    throw std::invalid_argument("low_rank_ratings: users and items must be between 1 and 2^24, rank at least 1");
  }
  core::RandomEngine engine = core::random_stream(seed, "data/low_rank_ratings");
  const auto rank = static_cast<Eigen::Index>(params.rank);
  const double scale = 1.0 / std::sqrt(std::sqrt(static_cast<double>(params.rank)));
  const auto factors = [&](std::size_t count) {
    Eigen::MatrixXd out(static_cast<Eigen::Index>(count), rank);
    for (Eigen::Index r = 0; r < out.rows(); ++r) {
      for (Eigen::Index c = 0; c < rank; ++c) out(r, c) = scale * core::standard_normal(engine);
    }
    return out;
  };
  const Eigen::MatrixXd users = factors(params.users);
  const Eigen::MatrixXd items = factors(params.items);

  const auto validation =
      held_out(params.samples, params.validation_fraction);
  const std::size_t train = params.samples - validation;
  SplitDataset out;
  out.train.features.resize(static_cast<Eigen::Index>(train), 2);
  out.train.labels.resize(static_cast<Eigen::Index>(train));
  out.validation.features.resize(static_cast<Eigen::Index>(validation), 2);
  out.validation.labels.resize(static_cast<Eigen::Index>(validation));
  for (std::size_t i = 0; i < params.samples; ++i) {
    Dataset& part = i < train ? out.train : out.validation;
    const auto row = static_cast<Eigen::Index>(i < train ? i : i - train);
    const auto user = static_cast<Eigen::Index>(core::uniform_index(engine, params.users));
    const auto item = static_cast<Eigen::Index>(core::uniform_index(engine, params.items));
    part.features(row, 0) = static_cast<float>(user);
    part.features(row, 1) = static_cast<float>(item);
    part.labels[row] =
        static_cast<float>(3.0 + users.row(user).dot(items.row(item)) + params.noise * core::standard_normal(engine));
  }
  return out;
}

}  // namespace dtsim::models
