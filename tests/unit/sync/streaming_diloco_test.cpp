// Streaming DiLoCo's schedule (each fragment H steps between its exchanges, at its own offset), the actions the
// strategy asks for, and the narrow floats its outer gradients travel in.

#include "sim/sync/fragment_schedule.hpp"
#include "sim/sync/outer_precision.hpp"
#include "sim/sync/sync_strategy.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

namespace dtsim::sync {
namespace {

std::string events(const FragmentSchedule& schedule, std::int64_t last) {
  std::string out;
  for (std::int64_t i = 1; i <= last; ++i) {
    for (const FragmentAction& action : schedule.at(i, last)) {
      out += fmt::format("{}{}", action.kind == FragmentAction::Kind::send ? 's' : 'm', action.fragment);
    }
    out += ' ';
  }
  return out;
}

TEST(FragmentSchedule, EachFragmentTakesHStepsBetweenItsExchangesAtItsOwnOffset) {
  // The paper's example: H = 100 and two fragments exchange at 100, 200, ... and at 150, 250, ...
  const FragmentSchedule paper(100, 2, 1);
  std::vector<std::int64_t> first;
  std::vector<std::int64_t> second;
  for (std::int64_t t = 1; t <= 300; ++t) {
    if (paper.sends_at(0, t)) first.push_back(t);
    if (paper.sends_at(1, t)) second.push_back(t);
  }
  EXPECT_EQ(first, (std::vector<std::int64_t>{100, 200, 300}));
  EXPECT_EQ(second, (std::vector<std::int64_t>{150, 250}));
  // H = 4, two fragments, merged one step after they are sent; the run ends after 9 steps: the exchange still on
  // its way is merged, then every fragment that stepped since its last exchange is exchanged at once (fragment 0
  // stepped once since its exchange at 8).
  EXPECT_EQ(events(FragmentSchedule(4, 2, 1), 9), "   s0 m0 s1 m1 s0 m0s0m0s1m1 ");
  // Without overlap a fragment is merged as soon as it is sent; one fragment is DiLoCo's outer step.
  EXPECT_EQ(events(FragmentSchedule(3, 1, 0), 7), "  s0m0   s0m0 s0m0 ");
  EXPECT_EQ(events(FragmentSchedule(3, 1, 0), 6), "  s0m0   s0m0 ");
  // Sent on the last step with overlap: merged at the end, not sent again.
  EXPECT_EQ(events(FragmentSchedule(2, 1, 1), 4), " s0 m0 s0m0 ");
  EXPECT_EQ(FragmentSchedule(4, 2, 1).send_order(9), (std::vector<int>{0, 1, 0, 0, 1}));
}

TEST(FragmentSchedule, TheSendOrderIsTheSendsOfEveryStepInTurn) {
  for (const auto& [h, p, tau] :
       std::vector<std::tuple<int, int, int>>{{1, 1, 0}, {4, 2, 1}, {10, 4, 3}, {7, 7, 0}, {100, 16, 1}}) {
    const FragmentSchedule schedule(h, p, tau);
    for (const std::int64_t last : {1, 3, 7, 20, 101, 250}) {
      std::vector<int> walked;
      for (std::int64_t i = 1; i <= last; ++i) {
        for (const FragmentAction& action : schedule.at(i, last)) {
          if (action.kind == FragmentAction::Kind::send) walked.push_back(action.fragment);
        }
      }
      EXPECT_EQ(schedule.send_order(last), walked) << "H " << h << ", P " << p << ", last " << last;
    }
  }
}

TEST(FragmentSchedule, FragmentsCutTheParametersIntoNearlyEqualPartsInOrder) {
  const FragmentSchedule schedule(10, 3, 1);
  EXPECT_EQ(schedule.range(0, 10), (std::pair<std::size_t, std::size_t>{0, 3}));
  EXPECT_EQ(schedule.range(1, 10), (std::pair<std::size_t, std::size_t>{3, 6}));
  EXPECT_EQ(schedule.range(2, 10), (std::pair<std::size_t, std::size_t>{6, 10}));
  EXPECT_THROW(FragmentSchedule(4, 5, 0), std::invalid_argument);
  EXPECT_THROW(FragmentSchedule(4, 2, 4), std::invalid_argument);
}

TEST(OuterPrecision, ValuesRoundToTheFloatTheyTravelIn) {
  EXPECT_EQ(precision_bits(OuterPrecision::fp4), 4);
  EXPECT_EQ(precision_bits(OuterPrecision::fp8), 8);
  EXPECT_EQ(precision_bits(OuterPrecision::bf16), 16);
  EXPECT_EQ(precision_bits(OuterPrecision::automatic), 32);
  // BF16 keeps 8 significant bits, ties to even: 1 + 2^-8 is a tie between 1 and 1 + 2^-7.
  std::vector<float> bf16{1.0F + 0x1p-8F, 1.0F + 3.0F * 0x1p-8F, 3.14159265F};
  round_to_precision(bf16, OuterPrecision::bf16);
  EXPECT_EQ(bf16, (std::vector<float>{1.0F, 1.0F + 0x1p-6F, 3.140625F}));
  // E3M0 after the message's power-of-two scale, here 2^-2 (3 / 2^-2 = 12 is at most 16, E3M0's largest):
  // 12 is 1.5 x 8, which rounds up to 16; 4 is 4; 0.8 rounds to 1; 0.08, below 1/8, to 0.
  std::vector<float> fp4{3.0F, -1.0F, 0.2F, 0.02F};
  round_to_precision(fp4, OuterPrecision::fp4);
  EXPECT_EQ(fp4, (std::vector<float>{4.0F, -1.0F, 0.25F, 0.0F}));
  // E4M3: 3 mantissa bits after the scale that brings the largest magnitude to at most 448 (here 2^-8).
  std::vector<float> fp8{1.0F, 0.1F, 0.0F};
  round_to_precision(fp8, OuterPrecision::fp8);
  EXPECT_FLOAT_EQ(fp8[0], 1.0F);
  EXPECT_FLOAT_EQ(fp8[1], 0.1015625F);  // 0.1 x 2^8 = 25.6, to 26 with 3 mantissa bits; 26 / 256
  EXPECT_EQ(fp8[2], 0.0F);
  // INT8 (INTELLECT-1's): sigma = sqrt(4.030816 / 4) = 1.0038, buckets 6 sigma / 256 = 0.023528 wide around 0.
  // 0.1 and 0.104 (4.25 and 4.42 buckets) share bucket +4 and come back as their mean; -0.1, 0 and 2 (85.0
  // buckets) each have a bucket of their own.
  EXPECT_EQ(precision_bits(OuterPrecision::int8), 8);
  std::vector<float> int8{0.1F, 0.104F, -0.1F, 0.0F, 2.0F};
  round_to_precision(int8, OuterPrecision::int8);
  EXPECT_FLOAT_EQ(int8[0], 0.102F);
  EXPECT_FLOAT_EQ(int8[1], 0.102F);
  EXPECT_FLOAT_EQ(int8[2], -0.1F);
  EXPECT_EQ(int8[3], 0.0F);
  EXPECT_FLOAT_EQ(int8[4], 2.0F);
  // Beyond 128 buckets (3 sigma) values share the outermost bucket: among 20,000 values of 0.001, 50 and 100
  // (sigma 0.79, buckets 0.0185 wide) both come back as 75.
  std::vector<float> tails(20'000, 0.001F);
  tails[7] = 100.0F;
  tails[9] = 50.0F;
  round_to_precision(tails, OuterPrecision::int8);
  EXPECT_FLOAT_EQ(tails[7], 75.0F);
  EXPECT_FLOAT_EQ(tails[9], 75.0F);
  EXPECT_FLOAT_EQ(tails[0], 0.001F);
  std::vector<float> same{0.1F, -7.0F};
  round_to_precision(same, OuterPrecision::fp32);
  EXPECT_EQ(same, (std::vector<float>{0.1F, -7.0F}));
}

}  // namespace
}  // namespace dtsim::sync
