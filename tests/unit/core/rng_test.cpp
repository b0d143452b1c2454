#include "sim/core/rng.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

namespace dtsim::core {
namespace {

TEST(RandomStreams, SameSeedAndNameGiveTheSameNumbers) {
  RandomEngine a = random_stream(7, "worker/1/straggler");
  RandomEngine b = random_stream(7, "worker/1/straggler");
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a(), b());
}

TEST(RandomStreams, DifferentNamesOrSeedsGiveDifferentNumbers) {
  EXPECT_NE(random_stream(7, "a")(), random_stream(7, "b")());
  EXPECT_NE(random_stream(7, "a")(), random_stream(8, "a")());
}

TEST(RandomStreams, StableHashIsFnv1a) {
  // Published FNV-1a 64 test vectors.
  EXPECT_EQ(stable_hash(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(stable_hash("a"), 0xaf63dc4c8601ec8cULL);
}

TEST(RandomStreams, UniformAndNormalHaveTheirMoments) {
  RandomEngine engine = random_stream(1, "moments");
  constexpr int kDraws = 200000;
  double uniform_sum = 0.0;
  double normal_sum = 0.0;
  double normal_square_sum = 0.0;
  for (int i = 0; i < kDraws; ++i) {
    const double u = uniform01(engine);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    uniform_sum += u;
    const double z = standard_normal(engine);
    normal_sum += z;
    normal_square_sum += z * z;
  }
  // Tolerances are about five standard errors.
  EXPECT_NEAR(uniform_sum / kDraws, 0.5, 5 * std::sqrt(1.0 / 12 / kDraws));
  EXPECT_NEAR(normal_sum / kDraws, 0.0, 5 / std::sqrt(kDraws));
  EXPECT_NEAR(normal_square_sum / kDraws, 1.0, 5 * std::sqrt(2.0 / kDraws));
}

TEST(RandomStreams, ShuffleIsAPermutation) {
  std::vector<int> items(50);
  std::iota(items.begin(), items.end(), 0);
  RandomEngine engine = random_stream(3, "shuffle");
  shuffle(std::span<int>(items), engine);
  std::vector<int> sorted = items;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 50; ++i) EXPECT_EQ(sorted[static_cast<std::size_t>(i)], i);
  std::vector<int> identity(50);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_NE(items, identity);
}

}  // namespace
}  // namespace dtsim::core
