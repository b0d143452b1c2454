#include "models/dense_classifier.hpp"
#include "models/labelled_csv.hpp"
#include "models/synthetic_classification.hpp"
#include "gradient_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace dtsim::models {
namespace {

/// Three classes from the two-class generator: the class is the label plus 1 where the first feature is
/// large, so that no class is empty.
Dataset three_classes() {
  Dataset data = make_synthetic_classification({80, 5, 0.0, 0.5}, 13).train;
  for (Eigen::Index i = 0; i < data.labels.size(); ++i) {
    if (data.features(i, 0) > 0.8F) data.labels[i] = 2.0F;
  }
  data.classes = 3;
  return data;
}

void expect_gradient_matches_finite_differences(const DenseClassifier& model, const Parameters& parameters) {
  std::vector<std::size_t> rows(20);
  std::iota(rows.begin(), rows.end(), 3);
  testing::expect_gradient_matches_finite_differences(model, parameters, three_classes(), rows, 2e-4, 2e-3);
}

TEST(DenseClassifier, SoftmaxRegressionGradientMatchesCentralFiniteDifferences) {
  const DenseClassifier model(5, {}, Activation::Relu, 3, 1);
  EXPECT_EQ(model.parameter_count(), 5U * 3U + 3U);
  Parameters parameters = Parameters::LinSpaced(static_cast<Eigen::Index>(model.parameter_count()), -0.8F, 0.9F);
  expect_gradient_matches_finite_differences(model, parameters);
}

TEST(DenseClassifier, TanhPerceptronGradientMatchesCentralFiniteDifferences) {
  const DenseClassifier model(5, {4, 3}, Activation::Tanh, 3, 2);
  EXPECT_EQ(model.parameter_count(), (5U * 4U + 4U) + (4U * 3U + 3U) + (3U * 3U + 3U));
  expect_gradient_matches_finite_differences(model, model.initial_parameters());
}

// Relu has a kink at 0, where a finite difference straddling it measures neither side: the hidden biases
// are moved until every pre-activation of the batch is at least 0.1 from 0, farther than a step moves it.
TEST(DenseClassifier, ReluPerceptronGradientMatchesCentralFiniteDifferences) {
  const DenseClassifier model(5, {6}, Activation::Relu, 3, 3);
  Parameters parameters = model.initial_parameters();
  const Dataset data = three_classes();
  const Eigen::Map<const Eigen::Matrix<float, 6, 5, Eigen::RowMajor>> weights(parameters.data());
  for (Eigen::Index unit = 0; unit < 6; ++unit) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      float nearest = 1e9F;
      for (Eigen::Index row = 3; row < 23; ++row) {
        nearest = std::min(nearest, std::abs(data.features.row(row).dot(weights.row(unit)) + parameters[30 + unit]));
      }
      if (nearest >= 0.1F) break;
      parameters[30 + unit] += 0.07F;
    }
  }
  expect_gradient_matches_finite_differences(model, parameters);
}

TEST(DenseClassifier, StartsAtLogClassesAndEvaluationCountsTheMostProbableClass) {
  const Dataset data = three_classes();
  const DenseClassifier model(5, {}, Activation::Relu, 3, 1);
  EXPECT_NEAR(model.evaluate(model.initial_parameters(), data).loss, std::log(3.0), 1e-6);
  // Weights that pick class 0 for every sample: the accuracy is the share of class 0.
  Parameters parameters = model.initial_parameters();
  parameters[15] = 10.0F;  // bias of class 0
  const double share = static_cast<double>((data.labels.array() == 0.0F).count()) / static_cast<double>(data.size());
  EXPECT_DOUBLE_EQ(model.evaluate(parameters, data).accuracy, share);
}

TEST(DenseClassifier, FlopsPerSampleFollowTheFormula) {
  // Softmax regression, f = 64, c = 10: 2fc + c forward, 2fc + c for the gradients, 5c for the softmax.
  EXPECT_DOUBLE_EQ(DenseClassifier(64, {}, Activation::Relu, 10, 0).training_flops_per_sample(),
                   2.0 * (2 * 64 * 10 + 10) + 50.0);
  // One relu layer of 32: layer 1 forward + relu + gradients; layer 2 forward + gradients + error back.
  const double layer1 = 2.0 * (2 * 64 * 32 + 32) + 32;
  const double layer2 = 2.0 * (2 * 32 * 10 + 10) + 2 * 32 * 10 + 32;
  EXPECT_DOUBLE_EQ(DenseClassifier(64, {32}, Activation::Relu, 10, 0).training_flops_per_sample(), layer1 + layer2 + 50.0);
  // Bytes: per sample the 64 inputs, 3 x (32 + 10) activations; per batch 12 bytes per parameter.
  const DenseClassifier mlp(64, {32}, Activation::Relu, 10, 0);
  EXPECT_DOUBLE_EQ(mlp.training_bytes(8), 4.0 * (64 + 3 * 42) * 8 + 12.0 * (64 * 32 + 32 + 32 * 10 + 10));
}

TEST(DenseClassifier, WrongShapesAreRejected) {
  EXPECT_THROW(DenseClassifier(5, {}, Activation::Relu, 1, 0), std::invalid_argument);
  EXPECT_THROW(DenseClassifier(5, {0}, Activation::Relu, 3, 0), std::invalid_argument);
  const DenseClassifier model(4, {}, Activation::Relu, 3, 0);
  EXPECT_THROW(static_cast<void>(model.evaluate(model.initial_parameters(), three_classes())), std::invalid_argument);
}

}  // namespace
}  // namespace dtsim::models
