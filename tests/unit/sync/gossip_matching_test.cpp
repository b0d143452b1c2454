#include "sim/sync/gossip_matching.hpp"

#include <gtest/gtest.h>

namespace dtsim::sync {
namespace {

std::vector<std::vector<int>> ring(int ranks) {
  std::vector<std::vector<int>> out(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) out[static_cast<std::size_t>(r)] = {(r + ranks - 1) % ranks, (r + 1) % ranks};
  return out;
}

TEST(GossipMatching, PairsNeighboursBothWaysAndIsTheSameForTheSameSeedAndRound) {
  const auto neighbours = ring(10);
  for (std::int64_t round = 0; round < 20; ++round) {
    const std::vector<int> partner = random_matching(neighbours, 7, round);
    int matched = 0;
    for (int r = 0; r < 10; ++r) {
      const int p = partner[static_cast<std::size_t>(r)];
      if (p < 0) continue;
      ++matched;
      EXPECT_EQ(partner[static_cast<std::size_t>(p)], r);
      EXPECT_TRUE(p == (r + 1) % 10 || p == (r + 9) % 10) << r << " paired with " << p;
    }
    EXPECT_GE(matched, 6);  // a maximal matching of a 10-cycle pairs at least 6 of its vertices
    EXPECT_EQ(partner, random_matching(neighbours, 7, round));
  }
  EXPECT_NE(random_matching(neighbours, 7, 0), random_matching(neighbours, 7, 1));
}

}  // namespace
}  // namespace dtsim::sync
