// The router's draws against their closed forms: even routing is exact, Zipf's shares are 1/k^s over its
// normalizer in some order, no expert takes more than 1/top_k of the copies (a token's top_k go to distinct
// experts), a capacity keeps min(share, C/E) and drops the rest, a device's load is its experts' kept share
// times the devices, at most min(devices, E/top_k), and every draw is a function of its key alone.

#include "models/expert_routing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace dtsim::models {
namespace {

double sum(const std::vector<double>& values) { return std::accumulate(values.begin(), values.end(), 0.0); }

TEST(ExpertRouting, EvenRoutingGivesEveryExpertItsShareAndEveryDeviceALoadOfOne) {
  const RoutingDraw draw = draw_routing({}, 8, 2, 1, {1, 0, 3, 0});
  for (const double share : draw.shares()) EXPECT_EQ(share, 1.0 / 8.0);
  for (const double load : draw.rank_loads(4)) EXPECT_DOUBLE_EQ(load, 1.0);
  EXPECT_EQ(draw.dropped(), 0.0);
}

TEST(ExpertRouting, ZipfSharesAreOneOverKToTheExponentInADrawnOrder) {
  RoutingSpec spec;
  spec.distribution = RoutingDistribution::Zipf;
  spec.exponent = 1.2;
  // Top 2: the largest share, 1/2.74, is under 1/2 and nothing is cut.
  const RoutingDraw draw = draw_routing(spec, 16, 2, 7, {2, 5, 9, 1});
  double normalizer = 0.0;
  for (int k = 1; k <= 16; ++k) normalizer += std::pow(k, -1.2);
  std::vector<double> sorted = draw.shares();
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  for (int k = 1; k <= 16; ++k) EXPECT_NEAR(sorted[static_cast<std::size_t>(k - 1)], std::pow(k, -1.2) / normalizer, 1e-15);
  EXPECT_NEAR(sum(draw.shares()), 1.0, 1e-12);
  // Another micro-batch draws another order; the same key, the same one.
  EXPECT_NE(draw_routing(spec, 16, 2, 7, {2, 6, 9, 1}).shares(), draw.shares());
  EXPECT_EQ(draw_routing(spec, 16, 2, 7, {2, 5, 9, 1}).shares(), draw.shares());
}

TEST(ExpertRouting, ACapacityKeepsAtMostItsShareAndDropsTheRest) {
  RoutingSpec spec;
  spec.distribution = RoutingDistribution::Dirichlet;
  spec.alpha = 0.3;
  spec.capacity_factor = 1.25;
  const RoutingDraw draw = draw_routing(spec, 8, 1, 3, {1, 0, 0, 0});
  double dropped = 0.0;
  for (std::size_t e = 0; e < 8; ++e) {
    EXPECT_DOUBLE_EQ(draw.kept()[e], std::min(draw.shares()[e], 1.25 / 8.0));
    dropped += std::max(0.0, draw.shares()[e] - 1.25 / 8.0);
  }
  EXPECT_NEAR(draw.dropped(), dropped, 1e-12);
  EXPECT_GT(draw.dropped(), 0.0) << "alpha 0.3 over 8 experts overfills some";
  // Two devices of four experts each: loads are their kept shares times 2.
  const std::vector<double> loads = draw.rank_loads(2);
  EXPECT_NEAR(loads[0], 2.0 * (draw.kept()[0] + draw.kept()[1] + draw.kept()[2] + draw.kept()[3]), 1e-12);
  EXPECT_NEAR(sum(loads), 2.0 * (1.0 - draw.dropped()), 1e-12);
  EXPECT_THROW(static_cast<void>(draw.rank_loads(3)), std::invalid_argument);
}

/// Zipf's law and Dirichlet draws from nearly even to all on one expert.
std::vector<RoutingSpec> skewed_specs() {
  std::vector<RoutingSpec> out;
  for (const double exponent : {0.5, 1.0, 2.0, 5.0, 100.0}) {
    RoutingSpec spec;
    spec.distribution = RoutingDistribution::Zipf;
    spec.exponent = exponent;
    out.push_back(spec);
  }
  for (const double alpha : {1e-30, 1e-3, 0.1, 1.0, 100.0}) {
    RoutingSpec spec;
    spec.distribution = RoutingDistribution::Dirichlet;
    spec.alpha = alpha;
    out.push_back(spec);
  }
  return out;
}

struct Router {
  int experts = 0;
  int top_k = 0;
};

class RoutingUnderTopK : public ::testing::TestWithParam<Router> {};

// A token's top_k copies go to distinct experts: whatever the draw, no expert takes more than 1/top_k of them,
// the shares still sum to 1, and no device of any group dividing the experts carries more than
// min(devices, E/top_k) times its even load.
TEST_P(RoutingUnderTopK, NoExpertTakesMoreThanOneOverTopKOfTheCopies) {
  const auto [experts, top_k] = GetParam();
  const double cap = 1.0 / static_cast<double>(top_k);
  for (const RoutingSpec& spec : skewed_specs()) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      const RoutingDraw draw = draw_routing(spec, experts, top_k, seed, {static_cast<std::int64_t>(seed), 1, 2, 0});
      for (const double share : draw.shares()) {
        EXPECT_GE(share, 0.0);
        EXPECT_LE(share, cap) << "exponent " << spec.exponent << ", alpha " << spec.alpha << ", seed " << seed;
      }
      EXPECT_NEAR(sum(draw.shares()), 1.0, 1e-12) << "exponent " << spec.exponent << ", alpha " << spec.alpha;
      for (int ranks = 1; ranks <= experts; ranks *= 2) {
        if (experts % ranks != 0) continue;
        const double bound = std::min(static_cast<double>(ranks), static_cast<double>(experts) / top_k);
        for (const double load : draw.rank_loads(ranks)) EXPECT_LE(load, bound * (1.0 + 1e-12));
        EXPECT_LE(draw.busiest_load(ranks), bound * (1.0 + 1e-12));
        EXPECT_GE(draw.busiest_load(ranks), 1.0 - 1e-12);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Routers, RoutingUnderTopK,
                         ::testing::Values(Router{2, 1}, Router{2, 2}, Router{8, 1}, Router{8, 2}, Router{8, 4},
                                           Router{8, 8}, Router{16, 3}, Router{64, 6}, Router{256, 8},
                                           Router{256, 256}),
                         [](const ::testing::TestParamInfo<Router>& param) {
                           return "top_" + std::to_string(param.param.top_k) + "_of_" +
                                  std::to_string(param.param.experts);
                         });

// All of a token's copies on the hottest expert would give one device of 8 eight times the mean load; the
// second copy must go elsewhere: half the copies each on the two hottest, and the busiest device at
// E/top_k = 4 times the mean.
TEST(ExpertRouting, AllOnOneExpertGivesTheBusiestDeviceEOverTopKTimesTheMean) {
  RoutingSpec zipf;
  zipf.distribution = RoutingDistribution::Zipf;
  zipf.exponent = 100.0;
  std::vector<double> sorted = draw_routing(zipf, 8, 2, 5, {1, 0, 0, 0}).shares();
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  EXPECT_EQ(sorted[0], 0.5);
  // The excess goes to the others in proportion to their shares, 2^-100 : 3^-100 : ...: nearly all to the second.
  EXPECT_NEAR(sorted[1], 0.5, 1e-15);
  EXPECT_NEAR(draw_routing(zipf, 8, 2, 5, {1, 0, 0, 0}).busiest_load(8), 4.0, 1e-12);
  // Every gamma draw underflows at alpha 1e-30: one expert drew everything, and the excess is spread evenly
  // over the other 7, which drew nothing.
  RoutingSpec dirichlet;
  dirichlet.distribution = RoutingDistribution::Dirichlet;
  dirichlet.alpha = 1e-30;
  const RoutingDraw draw = draw_routing(dirichlet, 8, 2, 5, {1, 0, 0, 0});
  sorted = draw.shares();
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  EXPECT_EQ(sorted[0], 0.5);
  for (std::size_t e = 1; e < 8; ++e) EXPECT_NEAR(sorted[e], 0.5 / 7.0, 1e-15);
  EXPECT_NEAR(draw.busiest_load(8), 4.0, 1e-12);
  // Two devices of four experts: the one with the hot expert holds 1/2 + 3/14 of the copies, load 2 x that.
  EXPECT_NEAR(draw.busiest_load(2), 2.0 * (0.5 + 3.0 * 0.5 / 7.0), 1e-12);
}

// The busiest device's load is over the mean kept share, however little is kept: at a capacity of 1e-30 every
// expert keeps 1.25e-31 of the copies, evenly, and the busiest is at the mean. Taken as 1 - dropped(), the mean
// was 1 - (1 - 1e-30), which rounds to 0, and the load came out as 1e270.
TEST(ExpertRouting, TheBusiestLoadUnderATinyCapacityIsOverWhatIsKept) {
  RoutingSpec spec;
  spec.capacity_factor = 1e-30;
  const RoutingDraw draw = draw_routing(spec, 8, 2, 5, {1, 0, 0, 0});
  for (const double share : draw.kept()) EXPECT_EQ(share, 1e-30 / 8.0);
  EXPECT_EQ(draw.dropped(), 1.0);
  EXPECT_DOUBLE_EQ(draw.busiest_load(8), 1.0);
  EXPECT_DOUBLE_EQ(draw.busiest_load(2), 1.0);
}

// With one expert a device the busiest holds the largest share, at least 1/E of the copies: under a capacity of
// at least 1 it keeps at least its even share, so its experts never work less than under even routing, and at
// most C times it.
TEST(ExpertRouting, ACapacityOfAtLeastOneKeepsTheBusiestDeviceAtEvenWorkOrMore) {
  for (const double capacity : {1.0, 1.25, 2.0}) {
    for (RoutingSpec spec : skewed_specs()) {
      spec.capacity_factor = capacity;
      for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const std::vector<double> loads = draw_routing(spec, 8, 2, seed, {1, 0, 0, 0}).rank_loads(8);
        const double busiest = *std::max_element(loads.begin(), loads.end());
        EXPECT_GE(busiest, 1.0 - 1e-12) << "capacity " << capacity << ", seed " << seed;
        EXPECT_LE(busiest, capacity + 1e-12);
      }
    }
  }
}

}  // namespace
}  // namespace dtsim::models
