// A link's conditions: the rate packet loss leaves one TCP flow, and jitter's draws.

#include "sim/platform/link_conditions.hpp"
#include "sim/platform/latency_jitter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace dtsim::platform {
namespace {

TEST(LinkConditions, LossCapsTheRateAtOneTcpFlowsUnderIt) {
  // 40 ms each way, 1 packet in 10,000 lost: 1.22 x 1460 / (0.08 x 0.01) = 2,226,500 bytes/s (17.8 Mbit/s).
  EXPECT_NEAR(bandwidth_under_loss(1.25e9, 0.04, 1e-4, 1), 2226500.0, 1e-6);
  // Below the cap, the link's own rate; no loss or no latency, no cap.
  EXPECT_EQ(bandwidth_under_loss(1e6, 0.04, 1e-4, 1), 1e6);
  EXPECT_EQ(bandwidth_under_loss(1.25e9, 0.04, 0.0, 1), 1.25e9);
  EXPECT_EQ(bandwidth_under_loss(1.25e9, 0.0, 1e-4, 1), 1.25e9);
  // Striped over 64 flows: 64 times as much, up to the link's own rate.
  EXPECT_NEAR(bandwidth_under_loss(1.25e9, 0.04, 1e-4, 64), 64.0 * 2226500.0, 1e-6);
  EXPECT_EQ(bandwidth_under_loss(1.25e9, 0.04, 1e-4, 1000), 1.25e9);
}

/// The mean and the largest of `count` draws of `jitter`.
std::pair<double, double> mean_and_largest(const PlatformSpec::LinkJitter& jitter, int count) {
  JitterDraws draws(5);
  double sum = 0.0;
  double largest = 0.0;
  for (int i = 0; i < count; ++i) {
    const double draw = draws.draw(jitter);
    EXPECT_GE(draw, 0.0);
    sum += draw;
    largest = std::max(largest, draw);
  }
  return {sum / count, largest};
}

TEST(LinkConditions, JittersDrawsHaveTheirDistributionsMeanAndRange) {
  // 20,000 draws: the sample mean within 3% (some 4 standard errors for the exponential, whose deviation is its
  // mean); the uniform's never beyond twice the mean, the exponential's tail well beyond it.
  constexpr int count = 20'000;
  const auto [exponential_mean, exponential_largest] =
      mean_and_largest({.mean_s = 5e-3, .distribution = scenario::JitterDistribution::Exponential}, count);
  EXPECT_NEAR(exponential_mean, 5e-3, 0.03 * 5e-3);
  EXPECT_GT(exponential_largest, 5.0 * 5e-3);
  const auto [uniform_mean, uniform_largest] =
      mean_and_largest({.mean_s = 5e-3, .distribution = scenario::JitterDistribution::Uniform}, count);
  EXPECT_NEAR(uniform_mean, 5e-3, 0.03 * 5e-3);
  EXPECT_LE(uniform_largest, 10e-3);
  EXPECT_GT(uniform_largest, 9.9e-3);
}

TEST(LinkConditions, JittersDrawsFollowTheSeed) {
  const PlatformSpec::LinkJitter jitter{.mean_s = 1.0};
  JitterDraws first(3);
  JitterDraws again(3);
  JitterDraws other(4);
  const double drawn = first.draw(jitter);
  EXPECT_EQ(drawn, again.draw(jitter));
  EXPECT_NE(drawn, other.draw(jitter));
}

}  // namespace
}  // namespace dtsim::platform
