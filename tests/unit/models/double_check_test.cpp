// Every trainable model's float gradient against central differences of its loss written again in double
// (double_reference.hpp).

#include "models/cooccurrence.hpp"
#include "models/dense_classifier.hpp"
#include "models/gaussian_blobs.hpp"
#include "models/glove.hpp"
#include "models/logistic_regression.hpp"
#include "models/low_rank_ratings.hpp"
#include "models/matrix_factorization.hpp"
#include "models/synthetic_classification.hpp"
#include "models/zipf_text.hpp"
#include "double_reference.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace dtsim::models {
namespace {

std::vector<std::size_t> first_rows(std::size_t count, std::size_t from) {
  std::vector<std::size_t> rows(count);
  std::iota(rows.begin(), rows.end(), from);
  return rows;
}

/// Deterministic values spread over [-scale, scale].
Parameters spread(std::size_t count, float scale) {
  Parameters out(static_cast<Eigen::Index>(count));
  for (Eigen::Index i = 0; i < out.size(); ++i) out[i] = scale * static_cast<float>((i * 7919) % 201 - 100) / 100.0F;
  return out;
}

TEST(DoublePrecisionCheck, LogisticRegression) {
  const Dataset data = make_synthetic_classification({64, 6, 0.25, 0.5}, 11).train;
  const LogisticRegression model(6);
  const auto rows = first_rows(20, 5);
  testing::expect_gradient_matches_double_differences(model, spread(7, 1.0F), data, rows,
                                                      testing::logistic_loss(data, rows), 1e-4);
}

TEST(DoublePrecisionCheck, SoftmaxRegression) {
  const Dataset data = make_gaussian_blobs({.samples = 100, .features = 5, .classes = 4}, 2).train;
  const DenseClassifier model(5, {}, Activation::Relu, 4, 1);
  const auto rows = first_rows(25, 0);
  testing::expect_gradient_matches_double_differences(model, spread(model.parameter_count(), 0.8F), data, rows,
                                                      testing::dense_loss(data, rows, model.widths(), false), 1e-4);
}

TEST(DoublePrecisionCheck, TanhAndReluPerceptrons) {
  const Dataset data = make_gaussian_blobs({.samples = 100, .features = 5, .classes = 3}, 4).train;
  const auto rows = first_rows(20, 10);
  const DenseClassifier tanh_mlp(5, {6, 4}, Activation::Tanh, 3, 2);
  testing::expect_gradient_matches_double_differences(tanh_mlp, tanh_mlp.initial_parameters(), data, rows,
                                                      testing::dense_loss(data, rows, tanh_mlp.widths(), true), 1e-4);
  // A step of 1e-6 crosses relu's kink only for a pre-activation within 1e-6 of 0: none here.
  const DenseClassifier relu_mlp(5, {7}, Activation::Relu, 3, 3);
  testing::expect_gradient_matches_double_differences(relu_mlp, relu_mlp.initial_parameters(), data, rows,
                                                      testing::dense_loss(data, rows, relu_mlp.widths(), false), 1e-4);
}

TEST(DoublePrecisionCheck, MatrixFactorization) {
  const Dataset data = make_low_rank_ratings({.samples = 300, .users = 10, .items = 8, .rank = 2}, 5).train;
  const MatrixFactorization model(10, 8, 3, 7);
  const auto rows = first_rows(30, 0);
  Parameters parameters = spread(model.parameter_count(), 0.6F);
  parameters[0] = 2.5F;
  testing::expect_gradient_matches_double_differences(model, parameters, data, rows,
                                                      testing::matrix_factorization_loss(data, rows, 10, 3), 1e-4);
}

TEST(DoublePrecisionCheck, Glove) {
  const Dataset data =
      make_cooccurrence(make_zipf_text({.words = 3000, .vocabulary = 30, .topics = 3}, 2), 3, 0.2, 4).train;
  const Glove model(30, 4, 5.0, 0.75, 3);
  const auto rows = first_rows(30, 0);
  testing::expect_gradient_matches_double_differences(model, spread(model.parameter_count(), 0.5F), data, rows,
                                                      testing::glove_loss(data, rows, 30, 4, 5.0, 0.75), 1e-4);
}

}  // namespace
}  // namespace dtsim::models
