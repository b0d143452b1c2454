#include "models/synthetic_classification.hpp"

#include <Eigen/Cholesky>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace dtsim::models {
namespace {

TEST(SyntheticClassification, SplitSizesAndDeterminism) {
  const SyntheticClassificationParams params{1000, 10, 0.2, 0.1};
  const SplitDataset a = make_synthetic_classification(params, 4);
  const SplitDataset b = make_synthetic_classification(params, 4);
  const SplitDataset c = make_synthetic_classification(params, 5);
  EXPECT_EQ(a.train.size(), 800U);
  EXPECT_EQ(a.validation.size(), 200U);
  EXPECT_EQ(a.train.feature_count(), 10U);
  EXPECT_TRUE(a.train.features == b.train.features);
  EXPECT_TRUE(a.validation.labels == b.validation.labels);
  EXPECT_FALSE(a.train.features == c.train.features);
}

TEST(SyntheticClassification, ClassesAreBalanced) {
  const SplitDataset data = make_synthetic_classification({20000, 5, 0.0, 0.3}, 2);
  const double positive = data.train.labels.mean();
  // x is symmetric around 0, so each label has probability 1/2; 5 standard errors.
  EXPECT_NEAR(positive, 0.5, 5 * std::sqrt(0.25 / 20000));
}

TEST(SyntheticClassification, NoiseBoundsTheBestAccuracy) {
  // With label noise sigma, a perfect classifier is right with probability 1 - atan(sigma)/pi. A classifier
  // fitted on plenty of data by least squares on the labels recovers the hidden direction well enough to be
  // within a few points of that bound.
  const double sigma = 0.5;
  const SplitDataset data = make_synthetic_classification({40000, 4, 0.5, sigma}, 8);
  const Eigen::VectorXf targets = (2.0F * data.train.labels.array() - 1.0F).matrix();
  const Eigen::MatrixXf x = data.train.features;
  const Eigen::VectorXf direction = (x.transpose() * x).ldlt().solve(x.transpose() * targets);
  const Eigen::VectorXf scores = data.validation.features * direction;
  double correct = 0.0;
  for (Eigen::Index i = 0; i < scores.size(); ++i) correct += (scores[i] > 0.0F) == (data.validation.labels[i] > 0.5F);
  const double accuracy = correct / static_cast<double>(scores.size());
  const double bound = 1.0 - std::atan(sigma) / std::numbers::pi;
  EXPECT_LT(accuracy, bound + 0.015);
  EXPECT_GT(accuracy, bound - 0.02);
}

}  // namespace
}  // namespace dtsim::models
