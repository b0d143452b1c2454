#include "models/memory_footprint.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace dtsim::models {
namespace {

MemoryPlan mixed_adam(int stage, int devices) {
  return {.parameters = 7.5e9, .activation_bytes_per_sample = 0.0, .samples = 0, .data_parallel = devices,
          .zero_stage = stage, .mixed_precision = true, .optimizer_values = 2};
}

// Rajbhandari et al. 2020, figure 1: mixed-precision Adam holds 16 Psi bytes per device without ZeRO, then
// 4 Psi + 12 Psi / N, 2 Psi + 14 Psi / N and 16 Psi / N (7.5B parameters on 64 devices: 120, 31.4, 16.6,
// 1.88 GB).
TEST(MemoryFootprint, ZeroStagesHoldWhatThePaperGives) {
  const double psi = 7.5e9;
  for (const int n : {1, 8, 64, 1024}) {
    EXPECT_DOUBLE_EQ(memory_footprint(mixed_adam(0, n)).total(), 16 * psi) << n;
    EXPECT_DOUBLE_EQ(memory_footprint(mixed_adam(1, n)).total(), 4 * psi + 12 * psi / n) << n;
    EXPECT_DOUBLE_EQ(memory_footprint(mixed_adam(2, n)).total(), 2 * psi + 14 * psi / n) << n;
    EXPECT_DOUBLE_EQ(memory_footprint(mixed_adam(3, n)).total(), 16 * psi / n) << n;
  }
  EXPECT_NEAR(memory_footprint(mixed_adam(1, 64)).total() / 1e9, 31.4, 0.05);
  EXPECT_NEAR(memory_footprint(mixed_adam(2, 64)).total() / 1e9, 16.6, 0.05);
  EXPECT_NEAR(memory_footprint(mixed_adam(3, 64)).total() / 1e9, 1.88, 0.005);
}

TEST(MemoryFootprint, EachPartFollowsThePrecisionTheOptimizerAndTheBatch) {
  MemoryPlan fp32{.parameters = 1e6, .activation_bytes_per_sample = 1000.0, .samples = 32, .data_parallel = 4,
                  .zero_stage = 0, .mixed_precision = false, .optimizer_values = 1};
  const MemoryFootprint momentum = memory_footprint(fp32);
  EXPECT_DOUBLE_EQ(momentum.parameters, 4e6);
  EXPECT_DOUBLE_EQ(momentum.gradients, 4e6);
  EXPECT_DOUBLE_EQ(momentum.optimizer, 4e6);  // fp32 updates the weights in place: no master copy
  EXPECT_DOUBLE_EQ(momentum.activations, 32000.0);
  fp32.optimizer_values = 0;
  EXPECT_DOUBLE_EQ(memory_footprint(fp32).optimizer, 0.0);
  fp32.mixed_precision = true;
  const MemoryFootprint sgd = memory_footprint(fp32);
  EXPECT_DOUBLE_EQ(sgd.optimizer, 4e6);  // the fp32 master weights
  EXPECT_DOUBLE_EQ(sgd.activations, 16000.0);
}

TEST(MemoryFootprint, AStageOutsideZeroToThreeIsRefused) {
  EXPECT_THROW(static_cast<void>(memory_footprint(mixed_adam(4, 8))), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(memory_footprint(mixed_adam(1, 0))), std::invalid_argument);
}

}  // namespace
}  // namespace dtsim::models
