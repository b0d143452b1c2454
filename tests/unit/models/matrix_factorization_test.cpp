#include "models/low_rank_ratings.hpp"
#include "models/matrix_factorization.hpp"
#include "gradient_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace dtsim::models {
namespace {

SplitDataset small_ratings() { return make_low_rank_ratings({.samples = 400, .users = 12, .items = 9, .rank = 2}, 5); }

TEST(LowRankRatings, IndicesInTheMatrixAndTheSplitAsAsked) {
  const SplitDataset data = small_ratings();
  EXPECT_EQ(data.train.size(), 320U);
  EXPECT_EQ(data.validation.size(), 80U);
  ASSERT_EQ(data.train.feature_count(), 2U);
  for (std::size_t row = 0; row < data.train.size(); ++row) {
    const float user = data.train.features(static_cast<Eigen::Index>(row), 0);
    const float item = data.train.features(static_cast<Eigen::Index>(row), 1);
    EXPECT_EQ(user, std::floor(user));
    EXPECT_GE(user, 0.0F);
    EXPECT_LT(user, 12.0F);
    EXPECT_GE(item, 0.0F);
    EXPECT_LT(item, 9.0F);
  }
  // Ratings are 3 plus a unit-variance product: their mean is near 3.
  EXPECT_NEAR(data.train.labels.mean(), 3.0F, 0.3F);
  const SplitDataset again = small_ratings();
  EXPECT_EQ(data.train.labels, again.train.labels);
  EXPECT_NE(data.train.labels, make_low_rank_ratings({.samples = 400, .users = 12, .items = 9, .rank = 2}, 6).train.labels);
}

TEST(MatrixFactorization, GradientMatchesCentralFiniteDifferences) {
  const SplitDataset data = small_ratings();
  const MatrixFactorization model(12, 9, 3, 7);
  std::vector<std::size_t> rows(25);
  std::iota(rows.begin(), rows.end(), 10);
  Parameters parameters = model.initial_parameters();
  parameters *= 5.0F;  // factors of about 0.5, so that the products matter
  parameters[0] = 2.5F;
  testing::expect_gradient_matches_finite_differences(model, parameters, data.train, rows, 1e-4, 1e-3);
}

// Only the rows of the batch's users and items (and the dense mean) get a gradient, and touched_rows names
// exactly those rows.
TEST(MatrixFactorization, TheGradientIsZeroOutsideTheTouchedRows) {
  const SplitDataset data = small_ratings();
  const MatrixFactorization model(12, 9, 3, 7);
  const std::vector<std::size_t> rows{0, 1, 2};
  Parameters gradient;
  model.loss_and_gradient(model.initial_parameters(), data.train, rows, gradient);
  std::vector<std::size_t> touched;
  model.touched_rows(data.train, rows, touched);
  ASSERT_TRUE(std::is_sorted(touched.begin(), touched.end()));
  ASSERT_TRUE(model.sparse_layout().has_value());
  const SparseLayout layout = *model.sparse_layout();
  EXPECT_EQ(layout.dense, 1U);
  EXPECT_EQ(layout.row_width, 4U);
  EXPECT_EQ(layout.rows, 21U);
  for (std::size_t row = 0; row < layout.rows; ++row) {
    const bool is_touched = std::binary_search(touched.begin(), touched.end(), row);
    const auto segment = gradient.segment(static_cast<Eigen::Index>(layout.dense + row * layout.row_width), 4);
    if (!is_touched) {
      EXPECT_EQ(segment.norm(), 0.0F) << "row " << row;
    }
  }
  for (const std::size_t row : rows) {
    const auto user = static_cast<std::size_t>(data.train.features(static_cast<Eigen::Index>(row), 0));
    const auto item = static_cast<std::size_t>(data.train.features(static_cast<Eigen::Index>(row), 1));
    EXPECT_TRUE(std::binary_search(touched.begin(), touched.end(), user));
    EXPECT_TRUE(std::binary_search(touched.begin(), touched.end(), 12 + item));
  }
  EXPECT_LE(touched.size(), 2 * rows.size());
}

TEST(MatrixFactorization, SgdOnTheRatingsLowersTheValidationLoss) {
  const SplitDataset data = make_low_rank_ratings({.samples = 4000, .users = 30, .items = 20, .rank = 2}, 3);
  const MatrixFactorization model(30, 20, 4, 1);
  Parameters parameters = model.initial_parameters();
  const double before = model.evaluate(parameters, data.validation).loss;
  Parameters gradient;
  std::vector<std::size_t> rows(16);
  for (int step = 0; step < 3000; ++step) {
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = (static_cast<std::size_t>(step) * 16 + i) % data.train.size();
    model.loss_and_gradient(parameters, data.train, rows, gradient);
    parameters -= 1.0F * gradient;
  }
  const Evaluation after = model.evaluate(parameters, data.validation);
  EXPECT_LT(after.loss, 0.2 * before);
  EXPECT_GT(after.accuracy, 0.5);
}

TEST(MatrixFactorization, FlopsPerSampleFollowTheFormulaAndBadShapesAreRejected) {
  EXPECT_DOUBLE_EQ(MatrixFactorization(5, 5, 16, 0).training_flops_per_sample(), 6.0 * 16 + 7.0);
  EXPECT_DOUBLE_EQ(MatrixFactorization(5, 5, 16, 0).training_bytes(2), 4.0 * (3 + 4 * 17) * 2);
  const SplitDataset data = small_ratings();
  const MatrixFactorization small(5, 9, 3, 0);  // fewer users than the data has
  EXPECT_THROW(static_cast<void>(small.evaluate(small.initial_parameters(), data.train)), std::out_of_range);
  EXPECT_THROW(MatrixFactorization(0, 5, 3, 0), std::invalid_argument);
}

}  // namespace
}  // namespace dtsim::models
