#include "sim/compute/device_cost_model.hpp"
#include "sim/scenario/device_catalog.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/support/scenario_format.hpp"

#include <gtest/gtest.h>

namespace dtsim::compute {
namespace {

using scenario::ComputePrecision;

/// A built-in device in `precision`, without its multiprocessors so that no product's shape factor applies.
scenario::DeviceProfile in(const std::string& name, ComputePrecision precision) {
  scenario::DeviceProfile device = *scenario::find_builtin_device(name);
  device.precision = precision;
  device.multiprocessors.reset();
  return device;
}

/// A product of 4,096 tokens by 8,192 columns by 2,048 deep, per sample: 2 r c d FLOPs forward, twice that back.
models::LayerProfile product(const std::string& name) {
  const double r = 4096, c = 8192, d = 2048;
  models::LayerProfile layer = models::whole_layer(name, c * d, 2 * r * c * d, 4 * r * c * d, 0.0);
  layer.gemm = {r, c, d};
  return layer;
}

/// The layer's seconds less its quantizing kernels': its products' FLOPs at `peak` x the gemm efficiency.
double products_at(const models::LayerProfile& layer, double peak, const scenario::DeviceProfile& device) {
  return 6.0 * 4096 * 8192 * 2048 / (peak * device.efficiency_of(models::OpClass::Gemm)) + 0.0 * layer.parameters;
}

double scaling_kernels(const scenario::DeviceProfile& device) {
  const double bandwidth = device.memory_bandwidth->value() * device.efficiency_of(models::OpClass::Elementwise);
  return 4096.0 * (2048.0 + 8192.0) * quantization_bytes(device) / bandwidth;
}

// Read in BF16 (2 bytes an element, twice where an amax pass or a second quantization comes first), written as
// the copies the products take: two on Hopper (a transposed one for the weight gradient), one on Blackwell for
// the per-tensor recipes; with the scales of each block.
TEST(QuantizedPrecision, EachRecipeMovesItsOwnBytesAnElement) {
  EXPECT_DOUBLE_EQ(quantization_bytes(in("h100", ComputePrecision::fp8_delayed)), 2.0 + 2.0);
  EXPECT_DOUBLE_EQ(quantization_bytes(in("h100", ComputePrecision::fp8_current)), 4.0 + 2.0);
  EXPECT_DOUBLE_EQ(quantization_bytes(in("h100", ComputePrecision::fp8_blockwise)), 4.0 + 2.0 * (1.0 + 4.0 / 128));
  EXPECT_DOUBLE_EQ(quantization_bytes(in("b200", ComputePrecision::fp8_delayed)), 2.0 + 1.0);
  EXPECT_DOUBLE_EQ(quantization_bytes(in("b200", ComputePrecision::mxfp8)), 2.0 + 2.0 * (1.0 + 1.0 / 32));
  EXPECT_DOUBLE_EQ(quantization_bytes(in("b200", ComputePrecision::nvfp4)), 4.0 + 2.0 * (0.5 + 1.0 / 16));
  EXPECT_DOUBLE_EQ(quantization_bytes(in("h100", ComputePrecision::bf16)), 0.0);
  EXPECT_DOUBLE_EQ(quantization_bytes(in("h100", ComputePrecision::mixed)), 0.0);
}

// An FP8 product runs at the FP8 peak, then its input is quantized forward and its output's gradient backward.
TEST(QuantizedPrecision, ProductsRunAtTheFp8PeakWithTheirScalingKernels) {
  const models::LayerProfile layer = product("block.ffn.up");
  const scenario::DeviceProfile bf16 = in("h100", ComputePrecision::bf16);
  const scenario::DeviceProfile fp8 = in("h100", ComputePrecision::fp8_blockwise);
  EXPECT_DOUBLE_EQ(layer_seconds(layer, 1, bf16), products_at(layer, 989.5e12, bf16));
  EXPECT_NEAR(layer_seconds(layer, 1, fp8), products_at(layer, 1979e12, fp8) + scaling_kernels(fp8), 1e-12);
  EXPECT_GT(layer_seconds(layer, 1, fp8), 0.5 * layer_seconds(layer, 1, bf16));
  EXPECT_LT(layer_seconds(layer, 1, fp8), layer_seconds(layer, 1, bf16));
}

// The language-model head and the router stay in 16 bits; attention's scores and context too.
TEST(QuantizedPrecision, WhatTheRecipeKeepsInSixteenBitsRunsAtTheHalfPeak) {
  models::LayerProfile head = product("lm_head");
  head.keeps_16_bits = true;
  const scenario::DeviceProfile fp8 = in("h100", ComputePrecision::fp8_delayed);
  EXPECT_DOUBLE_EQ(layer_seconds(head, 1, fp8), products_at(head, 989.5e12, fp8));
  const models::LayerProfile scores =
      models::whole_layer("block.attention.scores", 0.0, 1e12, 2e12, 0.0, models::OpClass::Attention);
  EXPECT_DOUBLE_EQ(layer_seconds(scores, 1, fp8), 3e12 / (989.5e12 * fp8.efficiency_of(models::OpClass::Attention)));
}

TEST(QuantizedPrecision, Nvfp4RunsAtTheFp4Peak) {
  const models::LayerProfile layer = product("block.ffn.down");
  const scenario::DeviceProfile fp4 = in("b200", ComputePrecision::nvfp4);
  EXPECT_NEAR(layer_seconds(layer, 1, fp4), products_at(layer, 9000e12, fp4) + scaling_kernels(fp4), 1e-12);
}

std::string timing_only(const std::string& device) {
  return "name: d\ncluster:\n  workers: 2\n  device: " + device +
         "\ntopology: {kind: ring, link: {bandwidth: \"10Gbps\", latency: \"5us\"}}\n"
         "model: {kind: \"profile:gpt2_small\", sequence_length: 128}\n"
         "training:\n  batch: {per_worker: 4}\n  optimizer: {learning_rate: 0.1}\n  stop: {iterations: 1}\n";
}

scenario::Scenario read(const std::string& text) {
  return scenario::read_scenario_text(dtsim::test::scenario_format(), text, "d.yaml");
}

// Megatron-Core reduces a BF16 run's gradients in FP32; `mixed` and fp16 keep them in 16 bits.
TEST(QuantizedPrecision, GradientsTravelInFp32UnderBf16AndTheFp8Recipes) {
  EXPECT_EQ(read(timing_only("{name: h100, precision: mixed}")).training.wire.gradients, 2);
  EXPECT_EQ(read(timing_only("{name: h100, precision: fp16}")).training.wire.gradients, 2);
  const scenario::Scenario bf16 = read(timing_only("{name: h100, precision: bf16}"));
  EXPECT_EQ(bf16.training.wire.gradients, 4);
  EXPECT_EQ(bf16.training.wire.parameters, 2);
  EXPECT_EQ(bf16.training.wire.activations, 2);
  EXPECT_EQ(bf16.training.wire.dispatch, 2);
  EXPECT_EQ(read(timing_only("{name: h100, precision: fp8_delayed}")).training.wire.gradients, 4);
  const scenario::Scenario declared =
      read(timing_only("{name: h100, precision: fp8_blockwise}") +
           "  communication_precision: {gradients: bf16, dispatch: fp8}\n");
  EXPECT_EQ(declared.training.wire.gradients, 2);
  EXPECT_EQ(declared.training.wire.dispatch, 1);
  EXPECT_EQ(declared.training.wire.activations, 2);
}

// Utilization is counted against the 16-bit peak under every reduced precision.
TEST(QuantizedPrecision, UtilizationCountsAgainstTheSixteenBitPeak) {
  EXPECT_DOUBLE_EQ(in("h100", ComputePrecision::fp8_current).half_peak().value(), 989.5e12);
  EXPECT_DOUBLE_EQ(in("h100", ComputePrecision::fp8_current).peak().value(), 1979e12);
  EXPECT_DOUBLE_EQ(in("b200", ComputePrecision::nvfp4).peak().value(), 9000e12);
  EXPECT_DOUBLE_EQ(in("h100", ComputePrecision::fp32).half_peak().value(), 67e12);
}

void expect_refused(const std::string& device, const std::string& message) {
  try {
    static_cast<void>(read(timing_only(device)));
    FAIL() << "accepted " << device;
  } catch (const core::InputError& error) {
    EXPECT_EQ(std::string(error.what()), message);
  }
}

TEST(QuantizedPrecision, APrecisionWithoutItsPeakIsRefused) {
  expect_refused("{name: a100, precision: fp8_delayed}",
                 "d.yaml:4:35: error: cluster.device.precision: precision fp8_delayed needs the device's fp8_flops, "
                 "and 'a100' has none\n  hint: declare fp8_flops, or use precision: bf16");
  expect_refused("{name: h100, precision: mxfp8}",
                 "d.yaml:4:35: error: cluster.device.precision: precision mxfp8 needs tensor cores that apply block "
                 "scales, those of the generation with FP4 (fp4_flops: Blackwell, CDNA4), and 'h100' has none\n  hint: "
                 "use precision: fp8_blockwise or fp8_current on this device, or declare fp4_flops");
  expect_refused("{name: h100, precision: nvfp4}",
                 "d.yaml:4:35: error: cluster.device.precision: precision nvfp4 needs the device's fp4_flops, and "
                 "'h100' has none\n  hint: declare fp4_flops, or use precision: bf16");
}

}  // namespace
}  // namespace dtsim::compute
