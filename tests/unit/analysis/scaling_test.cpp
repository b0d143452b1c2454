#include "analysis/scaling.hpp"

#include <gtest/gtest.h>

namespace dtsim::analysis {
namespace {

/// Runs whose iteration takes serial + parallel / n seconds (strong: the global batch split over n) or
/// serial + parallel (weak: each worker keeps its batch), `batch` samples per worker in the weak case.
std::vector<ScalingPoint> points(ScalingMode mode, double serial, double parallel, std::vector<int> workers) {
  std::vector<ScalingPoint> out;
  for (const int n : workers) {
    ScalingPoint p;
    p.workers = n;
    if (mode == ScalingMode::Strong) {
      p.iteration_s = serial + parallel / n;
      p.samples_per_s = 64.0 / p.iteration_s;
    } else {
      // Gustafson's view: a fixed serial part s and a part that grows with n, done in the same time.
      p.iteration_s = 1.0;
      p.samples_per_s = (serial + parallel * n) / (serial + parallel);
    }
    out.push_back(p);
  }
  return out;
}

TEST(ScalingStudy, WithoutASerialPartSpeedupIsTheWorkersAndEfficiencyOne) {
  const ScalingStudy strong = scaling_study(ScalingMode::Strong, points(ScalingMode::Strong, 0.0, 8.0, {8, 1, 4, 2}));
  ASSERT_EQ(strong.rows.size(), 4U);
  for (const ScalingRow& row : strong.rows) {
    EXPECT_DOUBLE_EQ(row.speedup, row.point.workers);
    EXPECT_DOUBLE_EQ(row.efficiency, 1.0);
  }
  EXPECT_EQ(strong.rows.front().point.workers, 1) << "sorted by workers";
  EXPECT_NEAR(*strong.serial_fraction, 0.0, 1e-12);
  EXPECT_FALSE(strong.rows.front().karp_flatt.has_value());
  EXPECT_NEAR(*strong.rows.back().karp_flatt, 0.0, 1e-12);
}

TEST(ScalingStudy, AmdahlsSerialFractionIsRecoveredAndKarpFlattEqualsIt) {
  // 10% of the one-worker time is serial.
  const ScalingStudy strong = scaling_study(ScalingMode::Strong, points(ScalingMode::Strong, 1.0, 9.0, {1, 2, 4, 8, 16, 32}));
  EXPECT_NEAR(*strong.serial_fraction, 0.1, 0.001);
  for (const ScalingRow& row : strong.rows) {
    EXPECT_NEAR(row.speedup, 1.0 / (0.1 + 0.9 / row.point.workers), 1e-9);
    if (row.karp_flatt) {
      EXPECT_NEAR(*row.karp_flatt, 0.1, 1e-9);
    }
  }
}

TEST(ScalingStudy, GustafsonsSerialFractionIsRecoveredFromScaledSpeedup) {
  const ScalingStudy weak = scaling_study(ScalingMode::Weak, points(ScalingMode::Weak, 0.25, 0.75, {1, 2, 4, 8, 16}));
  EXPECT_NEAR(*weak.serial_fraction, 0.25, 0.0025);
  for (const ScalingRow& row : weak.rows) EXPECT_NEAR(row.speedup, row.point.workers - 0.25 * (row.point.workers - 1), 1e-9);
}

TEST(ScalingStudy, SpeedupIsMeasuredFromTheSmallestRun) {
  // The smallest run has 4 workers: it counts as 4 times one worker.
  const ScalingStudy strong = scaling_study(ScalingMode::Strong, points(ScalingMode::Strong, 0.0, 8.0, {4, 8, 16}));
  EXPECT_DOUBLE_EQ(strong.rows[0].speedup, 4.0);
  EXPECT_DOUBLE_EQ(strong.rows[2].speedup, 16.0);
}

TEST(ScalingStudy, CsvHasOneRowPerPointWithTheFit) {
  const ScalingStudy strong = scaling_study(ScalingMode::Strong, points(ScalingMode::Strong, 1.0, 9.0, {1, 2}));
  const std::string csv = scaling_csv({strong});
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "mode,workers,iteration_s,samples_per_s,speedup,efficiency,karp_flatt,compute_share,communication_share,"
            "waiting_share,time_to_target_s,epochs_to_target,fitted_serial_fraction,layout");
  EXPECT_NE(csv.find("\nstrong,1,10,6.4,1,1,,0,0,0,,,0.1,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nstrong,2,5.5,"), std::string::npos) << csv;
}

}  // namespace
}  // namespace dtsim::analysis
