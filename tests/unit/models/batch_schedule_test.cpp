#include "models/batch_schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace dtsim::models {
namespace {

TEST(BatchSchedule, ShardsCoverTheTrainingSetWithoutOverlap) {
  const BatchSchedule schedule(103, 4, 5, 1);
  std::size_t covered = 0;
  for (int rank = 0; rank < 4; ++rank) {
    const Shard shard = schedule.shard(rank);
    EXPECT_EQ(shard.begin, covered);
    EXPECT_GE(shard.size(), 25U);
    EXPECT_LE(shard.size(), 26U);
    covered = shard.end;
  }
  EXPECT_EQ(covered, 103U);
  EXPECT_EQ(schedule.iterations_per_epoch(), 5U);  // 25 / 5
}

TEST(BatchSchedule, AnEpochVisitsDistinctSamplesOfTheOwnShard) {
  const BatchSchedule schedule(100, 2, 10, 9);
  BatchStream stream(schedule, 1);
  std::set<std::size_t> seen;
  for (std::size_t i = 0; i < schedule.iterations_per_epoch(); ++i) {
    for (const std::size_t row : stream.next()) {
      EXPECT_GE(row, 50U);
      EXPECT_LT(row, 100U);
      EXPECT_TRUE(seen.insert(row).second) << "sample " << row << " twice in one epoch";
    }
  }
  EXPECT_EQ(seen.size(), 50U);
}

TEST(BatchSchedule, EpochsAreReshuffledAndRunsRepeat) {
  const BatchSchedule schedule(40, 1, 40, 5);
  BatchStream first(schedule, 0);
  BatchStream again(schedule, 0);
  const auto first_epoch = first.next();
  const std::vector<std::size_t> epoch0(first_epoch.begin(), first_epoch.end());
  const auto epoch1 = first.next();
  EXPECT_FALSE(std::equal(epoch0.begin(), epoch0.end(), epoch1.begin()));
  const auto repeat = again.next();
  EXPECT_TRUE(std::equal(epoch0.begin(), epoch0.end(), repeat.begin()));
}

TEST(BatchSchedule, ShardSmallerThanABatchIsRejected) {
  EXPECT_THROW(BatchSchedule(30, 4, 8, 1), std::invalid_argument);
}

}  // namespace
}  // namespace dtsim::models
