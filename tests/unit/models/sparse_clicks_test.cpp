#include "models/logistic_regression.hpp"
#include "models/sparse_clicks.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace dtsim::models {
namespace {

TEST(SparseClicks, EachSampleHasItsActiveFeaturesPopularOnesMoreOften) {
  const SplitDataset data = make_sparse_clicks({.samples = 5000, .features = 300, .active = 6}, 4);
  EXPECT_EQ(data.train.size(), 4000U);
  EXPECT_EQ(data.validation.size(), 1000U);
  EXPECT_EQ(data.train.classes, 2U);
  for (Eigen::Index row = 0; row < 4000; ++row) {
    ASSERT_EQ(data.train.features.row(row).sum(), 6.0F) << "row " << row;
    ASSERT_TRUE(data.train.labels[row] == 0.0F || data.train.labels[row] == 1.0F);
  }
  EXPECT_EQ((data.train.features.array() * (1.0F - data.train.features.array())).abs().sum(), 0.0F);  // 0 or 1
  const Eigen::VectorXf usage = data.train.features.colwise().sum().transpose();
  EXPECT_GT(usage[0], 5 * usage[299]);
  EXPECT_GT(usage[0], usage[10]);
  // A base rate near 15% (the logit -2 widened by the weights).
  const double rate = data.train.labels.mean();
  EXPECT_GT(rate, 0.08);
  EXPECT_LT(rate, 0.3);
  EXPECT_EQ(data.train.features, make_sparse_clicks({.samples = 5000, .features = 300, .active = 6}, 4).train.features);
  EXPECT_THROW(make_sparse_clicks({.samples = 10, .features = 3, .active = 4}, 1), std::invalid_argument);
}

// The clicks follow a logistic model of the features: logistic regression beats the base rate's loss.
TEST(SparseClicks, LogisticRegressionLearnsTheClickModel) {
  const SplitDataset data = make_sparse_clicks({.samples = 20000, .features = 200, .active = 8}, 9);
  const LogisticRegression model(200);
  Parameters parameters = model.initial_parameters();
  Parameters gradient;
  std::vector<std::size_t> rows(100);
  for (int epoch = 0; epoch < 5; ++epoch) {
    for (std::size_t start = 0; start + rows.size() <= data.train.size(); start += rows.size()) {
      std::iota(rows.begin(), rows.end(), start);
      model.loss_and_gradient(parameters, data.train, rows, gradient);
      parameters -= 1.0F * gradient;
    }
  }
  const double p = data.validation.labels.mean();
  const double base_rate_loss = -(p * std::log(p) + (1 - p) * std::log(1 - p));
  EXPECT_LT(model.evaluate(parameters, data.validation).loss, 0.93 * base_rate_loss);
}

}  // namespace
}  // namespace dtsim::models
