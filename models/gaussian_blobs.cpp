#include "models/gaussian_blobs.hpp"

#include "sim/core/rng.hpp"

#include <cmath>
#include <stdexcept>

namespace dtsim::models {

SplitDataset make_gaussian_blobs(const GaussianBlobsParams& params, std::uint64_t seed) {
  if (params.classes < 2 || params.features == 0) throw std::invalid_argument("gaussian blobs: classes >= 2, features >= 1");
  core::RandomEngine engine = core::random_stream(seed, "data/gaussian_blobs");
  const auto features = static_cast<Eigen::Index>(params.features);
  Eigen::MatrixXd centers(static_cast<Eigen::Index>(params.classes), features);
  for (Eigen::Index k = 0; k < centers.rows(); ++k) {
    for (Eigen::Index j = 0; j < features; ++j) centers(k, j) = params.center_spread * core::standard_normal(engine);
  }
  const auto validation =
      held_out(params.samples, params.validation_fraction);
  const std::size_t train = params.samples - validation;
  SplitDataset out;
  for (Dataset* part : {&out.train, &out.validation}) {
    const std::size_t rows = part == &out.train ? train : validation;
    part->features.resize(static_cast<Eigen::Index>(rows), features);
    part->labels.resize(static_cast<Eigen::Index>(rows));
    part->classes = params.classes;
  }
  for (std::size_t i = 0; i < params.samples; ++i) {
    Dataset& part = i < train ? out.train : out.validation;
    const auto row = static_cast<Eigen::Index>(i < train ? i : i - train);
    const auto label = static_cast<Eigen::Index>(core::uniform_index(engine, params.classes));
    for (Eigen::Index j = 0; j < features; ++j) {
      part.features(row, j) = static_cast<float>(centers(label, j) + core::standard_normal(engine));
    }
    part.labels[row] = static_cast<float>(label);
  }
  return out;
}

}  // namespace dtsim::models
