#pragma once
// In-memory labelled data: one row per sample.

#include <Eigen/Core>

#include <cmath>
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

/// How many of `samples` a split holds out for validation at `fraction` (rounded to the nearest).
inline std::size_t held_out(std::size_t samples, double fraction) {
  return static_cast<std::size_t>(std::llround(static_cast<double>(samples) * fraction));
}

/// What a sample is: a labelled feature vector, a (user, item) rating, or a (word, context) co-occurrence.
enum class SampleKind { Classified, Rating, Cooccurrence };

/// What a model needs to know of its data before any sample is made.
struct DataShape {
  std::size_t samples = 0;
  std::size_t features = 0;
  std::size_t classes = 0;  ///< 0 for ratings and co-occurrences
  SampleKind kind = SampleKind::Classified;
  std::size_t words = 0;  ///< co-occurrences: the vocabulary
  std::size_t users = 0;  ///< ratings: rows of the matrix
  std::size_t items = 0;  ///< ratings: columns of the matrix
};

}  // namespace dtsim::models
