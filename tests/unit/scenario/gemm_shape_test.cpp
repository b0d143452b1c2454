#include "sim/compute/device_cost_model.hpp"
#include "sim/compute/gemm_shape.hpp"
#include "sim/scenario/device_catalog.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace dtsim::compute {
namespace {

// The grid's points are the measured ratios (bench/device/results/h100-gemm-shapes.csv, fp16 and bf16
// averaged, over 8192^3): 8192^3 is 1 by construction; 32768 x 1024 (n) x 1024 (k) ran at 0.819 of it.
TEST(GemmShape, GridPointsAreTheMeasuredRatios) {
  EXPECT_DOUBLE_EQ(gemm_shape_factor(8192, 8192, 8192), 1.0);
  EXPECT_DOUBLE_EQ(gemm_shape_factor(32768, 1024, 1024), 0.819);
  EXPECT_DOUBLE_EQ(gemm_shape_factor(4096, 4096, 4096), 1.045);
}

// Halfway in log2 between two points is their mean; beyond the grid the edge holds.
TEST(GemmShape, InterpolatesInLogarithmsAndHoldsItsEdges) {
  EXPECT_NEAR(gemm_shape_factor(8192, 8192, std::sqrt(4096.0 * 8192.0)),
              0.5 * (gemm_shape_factor(8192, 8192, 4096) + gemm_shape_factor(8192, 8192, 8192)), 1e-12);
  EXPECT_DOUBLE_EQ(gemm_shape_factor(1e6, 8192, 8192), gemm_shape_factor(65536, 8192, 8192));
  EXPECT_DOUBLE_EQ(gemm_shape_factor(8192, 1e5, 1e5), gemm_shape_factor(8192, 16384, 16384));
  EXPECT_DOUBLE_EQ(gemm_shape_factor(1, 1, 1), gemm_shape_factor(256, 256, 256));
  EXPECT_LT(gemm_shape_factor(1024, 256, 256), 0.05);  // a tiny product: its launch, not its FLOPs
}

TEST(GemmShape, ATrainingStepTimesItsThreeProductsTogether) {
  const double forward = gemm_shape_factor(32768, 1024, 1024);
  const double input = gemm_shape_factor(32768, 1024, 1024);
  const double weights = gemm_shape_factor(1024, 1024, 32768);
  EXPECT_NEAR(training_gemm_factor(32768, 1024, 1024), 3.0 / (1.0 / forward + 1.0 / input + 1.0 / weights), 1e-12);
}

// A layer with a product's shape runs at the device's gemm efficiency times the factor; without one, or on a
// device without multiprocessors (a CPU), at the efficiency alone.
TEST(GemmShape, OnlyShapedProductsOnAGpuTakeTheFactor) {
  scenario::DeviceProfile a100 = *scenario::find_builtin_device("a100");
  a100.precision = scenario::ComputePrecision::mixed;
  models::LayerProfile layer = models::whole_layer("dense", 1024.0 * 1024.0, 2.0 * 128 * 1024 * 1024,
                                                   4.0 * 128 * 1024 * 1024, 0.0);
  const double plain = layer_seconds(layer, 256, a100);
  layer.gemm = {128, 1024, 1024};
  EXPECT_NEAR(layer_seconds(layer, 256, a100), plain / training_gemm_factor(32768, 1024, 1024), 1e-15);
  scenario::DeviceProfile cpu = *scenario::find_builtin_device("cpu");
  const double on_cpu = layer_seconds(layer, 256, cpu);
  layer.gemm = {};
  EXPECT_DOUBLE_EQ(layer_seconds(layer, 256, cpu), on_cpu);
}

}  // namespace
}  // namespace dtsim::compute
