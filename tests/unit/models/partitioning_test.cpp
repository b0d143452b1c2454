#include "models/labelled_csv.hpp"
#include "models/partitioning.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace dtsim::models {
namespace {

Dataset digits_train() {
  const LabelledTable table = read_labelled_csv(std::filesystem::path(DTSIM_SOURCE_DIR) / "data" / "digits.csv");
  return split_and_standardize(table, 0.2, 1, "digits").train;
}

bool is_permutation_of_rows(std::vector<std::size_t> order, std::size_t rows) {
  std::sort(order.begin(), order.end());
  for (std::size_t i = 0; i < rows; ++i) {
    if (order.size() != rows || order[i] != i) return false;
  }
  return true;
}

/// Each worker's share of each class, after reordering by `order`.
std::vector<std::vector<double>> class_shares(const Dataset& train, const BatchSchedule& schedule,
                                              const std::vector<std::size_t>& order) {
  std::vector<std::vector<double>> shares;
  for (int worker = 0; worker < schedule.workers(); ++worker) {
    const Shard shard = schedule.shard(worker);
    std::vector<double> counts(train.classes, 0.0);
    for (std::size_t i = shard.begin; i < shard.end; ++i) counts[static_cast<std::size_t>(train.labels[static_cast<Eigen::Index>(order[i])])] += 1.0;
    for (double& count : counts) count /= static_cast<double>(shard.size());
    shares.push_back(counts);
  }
  return shares;
}

TEST(Partitioning, IidKeepsTheOrder) {
  const Dataset train = digits_train();
  const BatchSchedule schedule(train.size(), 8, 16, 1);
  const auto order = partition_order(train, schedule, Partitioning::Iid, 1.0, 1);
  for (std::size_t i = 0; i < order.size(); ++i) ASSERT_EQ(order[i], i);
}

TEST(Partitioning, ByLabelGivesEachWorkerFewClasses) {
  const Dataset train = digits_train();
  const BatchSchedule schedule(train.size(), 10, 16, 1);
  const auto order = partition_order(train, schedule, Partitioning::ByLabel, 1.0, 1);
  ASSERT_TRUE(is_permutation_of_rows(order, train.size()));
  for (const auto& shares : class_shares(train, schedule, order)) {
    // A shard is about one class's size, so it straddles at most two boundaries.
    EXPECT_LE(std::count_if(shares.begin(), shares.end(), [](double s) { return s > 0.0; }), 3);
  }
}

TEST(Partitioning, SmallDirichletAlphaConcentratesAndLargeAlphaMixes) {
  const Dataset train = digits_train();
  const BatchSchedule schedule(train.size(), 8, 16, 1);
  std::vector<double> global(train.classes, 0.0);
  for (Eigen::Index i = 0; i < train.labels.size(); ++i) global[static_cast<std::size_t>(train.labels[i])] += 1.0 / static_cast<double>(train.size());

  const auto skewed = partition_order(train, schedule, Partitioning::Dirichlet, 0.05, 7);
  ASSERT_TRUE(is_permutation_of_rows(skewed, train.size()));
  // The largest class share of a worker, on average: about 0.1 for an even mix of ten classes. A worker's
  // favourite class can run out (a shard is larger than a class), so it stays below 1.
  double largest = 0.0;
  for (const auto& shares : class_shares(train, schedule, skewed)) largest += *std::max_element(shares.begin(), shares.end()) / 8.0;
  EXPECT_GT(largest, 0.5);

  const auto mixed = partition_order(train, schedule, Partitioning::Dirichlet, 1000.0, 7);
  ASSERT_TRUE(is_permutation_of_rows(mixed, train.size()));
  for (const auto& shares : class_shares(train, schedule, mixed)) {
    for (std::size_t c = 0; c < shares.size(); ++c) EXPECT_NEAR(shares[c], global[c], 0.06) << "class " << c;
  }
  EXPECT_EQ(partition_order(train, schedule, Partitioning::Dirichlet, 0.05, 7), skewed);
  EXPECT_NE(partition_order(train, schedule, Partitioning::Dirichlet, 0.05, 8), skewed);
}

TEST(Partitioning, ReorderMovesWholeRows) {
  Dataset data;
  data.features.resize(3, 2);
  data.features << 1, 2, 3, 4, 5, 6;
  data.labels.resize(3);
  data.labels << 0, 1, 2;
  reorder(data, {2, 0, 1});
  EXPECT_EQ(data.features(0, 1), 6.0F);
  EXPECT_EQ(data.labels[0], 2.0F);
  EXPECT_EQ(data.labels[2], 1.0F);
  EXPECT_THROW(reorder(data, {0, 1}), std::invalid_argument);
}

}  // namespace
}  // namespace dtsim::models
