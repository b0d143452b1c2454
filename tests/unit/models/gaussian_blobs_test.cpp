#include "models/gaussian_blobs.hpp"

#include <gtest/gtest.h>

namespace dtsim::models {
namespace {

TEST(GaussianBlobs, EveryClassAppearsAroundItsOwnCentreAndTheDrawIsSeeded) {
  const SplitDataset data = make_gaussian_blobs({.samples = 3000, .features = 4, .classes = 3}, 9);
  EXPECT_EQ(data.train.size(), 2400U);
  EXPECT_EQ(data.validation.size(), 600U);
  EXPECT_EQ(data.train.classes, 3U);
  // Per class: the mean of its samples; samples lie closer to their own class mean than to the others'.
  Eigen::MatrixXd means = Eigen::MatrixXd::Zero(3, 4);
  Eigen::VectorXd counts = Eigen::VectorXd::Zero(3);
  for (Eigen::Index i = 0; i < data.train.labels.size(); ++i) {
    const auto k = static_cast<Eigen::Index>(data.train.labels[i]);
    means.row(k) += data.train.features.row(i).cast<double>();
    counts[k] += 1.0;
  }
  for (Eigen::Index k = 0; k < 3; ++k) {
    EXPECT_GT(counts[k], 600.0);
    means.row(k) /= counts[k];
  }
  int nearest_own = 0;
  for (Eigen::Index i = 0; i < data.train.labels.size(); ++i) {
    Eigen::Index nearest = 0;
    (means.rowwise() - data.train.features.row(i).cast<double>()).rowwise().squaredNorm().minCoeff(&nearest);
    nearest_own += nearest == static_cast<Eigen::Index>(data.train.labels[i]) ? 1 : 0;
  }
  EXPECT_GT(nearest_own, 2000);
  EXPECT_EQ(make_gaussian_blobs({.samples = 3000, .features = 4, .classes = 3}, 9).train.features, data.train.features);
  EXPECT_NE(make_gaussian_blobs({.samples = 3000, .features = 4, .classes = 3}, 10).train.features, data.train.features);
}

}  // namespace
}  // namespace dtsim::models
