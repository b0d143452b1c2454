#pragma once
// In-memory labelled data: one row per sample.

#include <Eigen/Core>

#include <cstddef>

namespace dtsim::models {

using FeatureMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Parameters = Eigen::VectorXf;

struct Dataset {
  FeatureMatrix features;  ///< samples x features
  Eigen::VectorXf labels;  ///< one label per sample: a class index, or a value (ratings)
  std::size_t classes = 2;  ///< for classification: labels are 0..classes-1

  [[nodiscard]] std::size_t size() const { return static_cast<std::size_t>(features.rows()); }
  [[nodiscard]] std::size_t feature_count() const { return static_cast<std::size_t>(features.cols()); }
};

struct SplitDataset {
  Dataset train;
  Dataset validation;
};

}  // namespace dtsim::models
