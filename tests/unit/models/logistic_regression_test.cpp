#include "models/logistic_regression.hpp"
#include "models/synthetic_classification.hpp"
#include "gradient_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace dtsim::models {
namespace {

SplitDataset small_data() { return make_synthetic_classification({64, 6, 0.25, 0.5}, 11); }

TEST(LogisticRegression, GradientMatchesCentralFiniteDifferences) {
  const SplitDataset data = small_data();
  const LogisticRegression model(6);
  std::vector<std::size_t> rows(20);
  std::iota(rows.begin(), rows.end(), 5);
  // A point away from zero, so that every term of the gradient matters.
  Parameters parameters(7);
  parameters << 0.3F, -0.7F, 1.1F, 0.05F, -0.4F, 0.9F, 0.2F;
  // Truncation error is O(h^2) ~ 1e-5 here; float rounding of the parameters adds ~1e-6.
  testing::expect_gradient_matches_finite_differences(model, parameters, data.train, rows, 1e-4, 1e-3);
}

TEST(LogisticRegression, LossAtZeroIsLogTwoAndFallsAlongTheGradient) {
  const SplitDataset data = small_data();
  const LogisticRegression model(6);
  std::vector<std::size_t> rows(data.train.size());
  std::iota(rows.begin(), rows.end(), 0);
  Parameters parameters = model.initial_parameters();
  Parameters gradient;
  const double before = model.loss_and_gradient(parameters, data.train, rows, gradient);
  EXPECT_NEAR(before, std::log(2.0), 1e-12);
  parameters -= 0.5F * gradient;
  EXPECT_LT(model.loss(parameters, data.train, rows), before);
}

TEST(LogisticRegression, EvaluationCountsCorrectSigns) {
  Dataset data;
  data.features.resize(4, 1);
  data.features << 1.0F, 2.0F, -1.0F, -3.0F;
  data.labels.resize(4);
  data.labels << 1.0F, 0.0F, 0.0F, 0.0F;
  const LogisticRegression model(1);
  Parameters parameters(2);
  parameters << 1.0F, 0.0F;  // predicts 1 exactly when x > 0
  const Evaluation evaluation = model.evaluate(parameters, data);
  EXPECT_DOUBLE_EQ(evaluation.accuracy, 0.75);
  const double expected = (std::log1p(std::exp(-1.0)) + std::log1p(std::exp(2.0)) + std::log1p(std::exp(-1.0)) +
                           std::log1p(std::exp(-3.0))) / 4.0;
  EXPECT_NEAR(evaluation.loss, expected, 1e-9);
}

TEST(LogisticRegression, FlopsPerSampleFollowTheFormula) {
  EXPECT_DOUBLE_EQ(LogisticRegression(64).training_flops_per_sample(), 4.0 * 64 + 7.0);
}

TEST(LogisticRegression, WrongShapeIsRejected) {
  const SplitDataset data = small_data();
  const LogisticRegression model(5);
  EXPECT_THROW(static_cast<void>(model.evaluate(Parameters::Zero(6), data.train)), std::invalid_argument);
}

}  // namespace
}  // namespace dtsim::models
