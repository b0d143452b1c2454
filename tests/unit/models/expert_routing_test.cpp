// The router's draws against their closed forms: even routing is exact, Zipf's shares are 1/k^s over its
// normalizer in some order, a capacity keeps min(share, C/E) and drops the rest, a device's load is its
// experts' kept share times the devices, and every draw is a function of its key alone.

#include "models/expert_routing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

namespace dtsim::models {
namespace {

double sum(const std::vector<double>& values) { return std::accumulate(values.begin(), values.end(), 0.0); }

TEST(ExpertRouting, EvenRoutingGivesEveryExpertItsShareAndEveryDeviceALoadOfOne) {
  const RoutingDraw draw = draw_routing({}, 8, 1, {1, 0, 3, 0});
  for (const double share : draw.shares()) EXPECT_EQ(share, 1.0 / 8.0);
  for (const double load : draw.rank_loads(4)) EXPECT_DOUBLE_EQ(load, 1.0);
  EXPECT_EQ(draw.dropped(), 0.0);
}

TEST(ExpertRouting, ZipfSharesAreOneOverKToTheExponentInADrawnOrder) {
  RoutingSpec spec;
  spec.distribution = RoutingDistribution::Zipf;
  spec.exponent = 1.2;
  const RoutingDraw draw = draw_routing(spec, 16, 7, {2, 5, 9, 1});
  double normalizer = 0.0;
  for (int k = 1; k <= 16; ++k) normalizer += std::pow(k, -1.2);
  std::vector<double> sorted = draw.shares();
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  for (int k = 1; k <= 16; ++k) EXPECT_NEAR(sorted[static_cast<std::size_t>(k - 1)], std::pow(k, -1.2) / normalizer, 1e-15);
  EXPECT_NEAR(sum(draw.shares()), 1.0, 1e-12);
  // Another micro-batch draws another order; the same key, the same one.
  EXPECT_NE(draw_routing(spec, 16, 7, {2, 6, 9, 1}).shares(), draw.shares());
  EXPECT_EQ(draw_routing(spec, 16, 7, {2, 5, 9, 1}).shares(), draw.shares());
}

TEST(ExpertRouting, ACapacityKeepsAtMostItsShareAndDropsTheRest) {
  RoutingSpec spec;
  spec.distribution = RoutingDistribution::Dirichlet;
  spec.alpha = 0.3;
  spec.capacity_factor = 1.25;
  const RoutingDraw draw = draw_routing(spec, 8, 3, {1, 0, 0, 0});
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

}  // namespace
}  // namespace dtsim::models
