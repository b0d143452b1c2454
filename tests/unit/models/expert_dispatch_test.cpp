#include "models/expert_dispatch.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace dtsim::models {
namespace {

/// C(n, k) as a double.
double choose(int n, int k) {
  double out = 1.0;
  for (int i = 0; i < k; ++i) out = out * (n - i) / (i + 1);
  return out;
}

// Without a group limit a token's top_k experts are drawn from all of them: it misses a machine's E/N with
// probability C(E - E/N, k) / C(E, k).
TEST(MachineReach, WithoutGroupsIsOneMinusTheChanceOfMissingEveryExpertOfTheMachine) {
  for (const auto& [experts, top_k, machines] : std::vector<std::tuple<int, int, int>>{{256, 8, 8}, {64, 2, 4}, {8, 2, 8}}) {
    const double expected = 1.0 - choose(experts - experts / machines, top_k) / choose(experts, top_k);
    for (int m = 0; m < machines; ++m) {
      EXPECT_NEAR(machine_reach({experts, top_k, 0, 0}, machines, m), expected, 1e-9) << experts << " " << m;
    }
  }
  EXPECT_DOUBLE_EQ(machine_reach({256, 8, 0, 0}, 1, 0), 1.0);
}

// DeepSeek-V3's node-limited routing on 8 machines of 32 experts, each a group: a token's 4 groups hold a
// machine with probability 4/8, and then miss its 32 experts among the 128 with C(96, 8) / C(128, 8). A token
// reaches 8 x that many machines on average, at most 4.
TEST(MachineReach, NodeLimitedRoutingReachesAtMostItsLimitOfMachines) {
  const GroupLimitedRouting v3{256, 8, 8, 4};
  const double expected = 0.5 * (1.0 - choose(96, 8) / choose(128, 8));
  double machines_reached = 0.0;
  for (int m = 0; m < 8; ++m) {
    EXPECT_NEAR(machine_reach(v3, 8, m), expected, 1e-9);
    machines_reached += machine_reach(v3, 8, m);
  }
  EXPECT_LE(machines_reached, 4.0);
  EXPECT_LT(machines_reached, 8.0 * machine_reach({256, 8, 0, 0}, 8, 0));
}

// A Monte Carlo of the router (groups drawn, then experts among theirs) agrees with the closed form where groups
// straddle machines (6 groups of 4 experts over 4 machines of 6).
TEST(MachineReach, AgreesWithDrawingTheRoutes) {
  const GroupLimitedRouting routing{24, 3, 6, 2};
  std::mt19937_64 random(7);
  std::vector<int> reached(4, 0);
  const int draws = 200'000;
  for (int d = 0; d < draws; ++d) {
    std::vector<int> groups{0, 1, 2, 3, 4, 5};
    std::shuffle(groups.begin(), groups.end(), random);
    std::vector<int> candidates;
    for (int g = 0; g < 2; ++g) {
      for (int e = 0; e < 4; ++e) candidates.push_back(groups[static_cast<std::size_t>(g)] * 4 + e);
    }
    std::shuffle(candidates.begin(), candidates.end(), random);
    std::vector<bool> hit(4, false);
    for (int k = 0; k < 3; ++k) hit[static_cast<std::size_t>(candidates[static_cast<std::size_t>(k)] / 6)] = true;
    for (int m = 0; m < 4; ++m) reached[static_cast<std::size_t>(m)] += hit[static_cast<std::size_t>(m)] ? 1 : 0;
  }
  for (int m = 0; m < 4; ++m) {
    EXPECT_NEAR(machine_reach(routing, 4, m), static_cast<double>(reached[static_cast<std::size_t>(m)]) / draws, 0.005) << m;
  }
}

// The largest shapes a scenario may declare (4,096 experts, a token's 4,096 of them, on one machine or one
// machine an expert) are computed in a pass over the groups a machine holds, not over its subsets.
TEST(MachineReach, TheLargestDeclarableShapesAreComputedInClosedForm) {
  EXPECT_DOUBLE_EQ(machine_reach({4096, 4096, 0, 0}, 1, 0), 1.0);
  EXPECT_NEAR(machine_reach({4096, 1, 0, 0}, 4096, 17), 1.0 / 4096, 1e-10);
  EXPECT_NEAR(machine_reach({4096, 2048, 4096, 2048}, 2, 1), 1.0, 1e-10);
}

TEST(MachineReach, RefusesGroupsThatCannotHoldTheTopK) {
  EXPECT_THROW(static_cast<void>(machine_reach({256, 8, 8, 0}, 8, 0)), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(machine_reach({16, 8, 8, 2}, 8, 0)), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(machine_reach({256, 8, 0, 0}, 3, 0)), std::invalid_argument);
}

}  // namespace
}  // namespace dtsim::models
