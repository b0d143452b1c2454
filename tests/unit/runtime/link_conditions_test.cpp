// A link's conditions: the rate packet loss leaves one TCP flow.

#include "sim/platform/link_conditions.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace dtsim::platform
