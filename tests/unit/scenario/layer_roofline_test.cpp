#include "sim/compute/device_cost_model.hpp"
#include "sim/scenario/device_catalog.hpp"

#include <gtest/gtest.h>

namespace dtsim::compute {
namespace {

/// Three layers, per sample: a matrix product (1 GFLOP forward, 2 backward, 1M parameters, 4 MB kept), the
/// attention (0.5 and 1 GFLOP, 8 MB kept) and a normalization (10 and 20 MFLOP, 2,000 parameters, 40 MB).
models::ModelProfile three_layers() {
  models::ModelProfile out{"three", "", "", {}, {}};
  out.layers.push_back(models::whole_layer("dense", 1e6, 1e9, 2e9, 4e6, models::OpClass::Gemm));
  out.layers.push_back(models::whole_layer("attention", 0.0, 5e8, 1e9, 8e6, models::OpClass::Attention));
  out.layers.push_back(models::whole_layer("norm", 2e3, 1e7, 2e7, 4e7, models::OpClass::Elementwise));
  return out;
}

scenario::DeviceProfile mixed(const std::string& name) {
  scenario::DeviceProfile device = *scenario::find_builtin_device(name);
  device.precision = scenario::ComputePrecision::mixed;
  return device;
}

double total_seconds(const models::ModelProfile& table, double batch, const scenario::DeviceProfile& device) {
  double total = 0.0;
  for (const models::LayerProfile& layer : table.layers) total += layer_seconds(layer, batch, device);
  return total;
}

// Batch 8, mixed precision: a layer's bytes are 3 x half its activations x 8 + 16 per parameter, moved at
// the elementwise efficiency's fraction of the bandwidth.
// A100: 312 TFLOPS tensor, 19.5 FP32, 2,039 GB/s; efficiencies 0.74 (gemm), 0.50 (attention), 0.79 (elementwise),
// so 1,610.81 GB/s.
//   dense:     2.4e10 FLOPs / (312e12 x 0.74) = 103.95 us; bytes 6.4e7 / 1610.81e9 = 39.7 us   -> compute
//   attention: 1.2e10 / (312e12 x 0.50) = 76.92 us;           bytes 9.6e7 / 1610.81e9 = 59.6 us   -> compute
//   norm:      2.4e8 / (19.5e12 x 0.79) = 15.6 us;            bytes 4.80032e8 / 1610.81e9 = 298.0 us -> memory
TEST(LayerRoofline, EachLayerTakesItsOwnRooflineOnAnA100) {
  const scenario::DeviceProfile a100 = mixed("a100");
  const models::ModelProfile table = three_layers();
  EXPECT_DOUBLE_EQ(layer_seconds(table.layers[0], 8, a100), 2.4e10 / (312e12 * 0.74));
  EXPECT_DOUBLE_EQ(layer_seconds(table.layers[1], 8, a100), 1.2e10 / (312e12 * 0.50));
  EXPECT_DOUBLE_EQ(layer_seconds(table.layers[2], 8, a100), 4.80032e8 / (2039e9 * 0.79));
  EXPECT_NEAR(total_seconds(table, 8, a100), 103.95010e-6 + 76.92308e-6 + 298.00659e-6, 1e-10);
}

// V100: 125 TFLOPS tensor, 15.7 FP32, 900 GB/s; efficiencies 0.76 (gemm), 0.2613 for attention (fitted on the
// V100 fit rows of the validation table), 0.87 (elementwise), so 783 GB/s.
//   dense:     2.4e10 / (125e12 x 0.76) = 252.63 us; bytes 6.4e7 / 783e9 = 81.7 us   -> compute
//   attention: 1.2e10 / (125e12 x 0.2613) = 367.39 us; bytes 9.6e7 / 783e9 = 122.6 us -> compute
//   norm:      2.4e8 / (15.7e12 x 0.87) = 17.6 us;   bytes 4.80032e8 / 783e9 = 613.1 us -> memory
TEST(LayerRoofline, EachLayerTakesItsOwnRooflineOnAV100) {
  const scenario::DeviceProfile v100 = mixed("v100");
  const models::ModelProfile table = three_layers();
  EXPECT_DOUBLE_EQ(layer_seconds(table.layers[0], 8, v100), 2.4e10 / (125e12 * 0.76));
  EXPECT_DOUBLE_EQ(layer_seconds(table.layers[1], 8, v100), 1.2e10 / (125e12 * 0.2613));
  EXPECT_DOUBLE_EQ(layer_seconds(table.layers[2], 8, v100), 4.80032e8 / (900e9 * 0.87));
  EXPECT_NEAR(total_seconds(table, 8, v100), 252.63158e-6 + 367.39380e-6 + 613.06769e-6, 1e-10);
}

TEST(LayerRoofline, TheHostExecutesFlopsThatTakeEachLayersTime) {
  const scenario::DeviceProfile a100 = mixed("a100");
  const models::ModelProfile table = three_layers();
  const models::ModelProfile host = host_flops(table, 8, a100);
  const double rate = sustained_rate(a100).value();
  EXPECT_DOUBLE_EQ(rate, 312e12 * 0.74);
  for (std::size_t i = 0; i < table.layers.size(); ++i) {
    const models::LayerProfile& layer = host.layers[i];
    EXPECT_NEAR((layer.forward_flops + layer.backward_flops) / rate, layer_seconds(table.layers[i], 8, a100), 1e-15);
    // Split between the passes as the layer's FLOPs are: a third forward.
    EXPECT_NEAR(layer.forward_flops, (layer.forward_flops + layer.backward_flops) / 3.0, 1e-3);
    EXPECT_EQ(layer.parameters, table.layers[i].parameters);
  }
}

TEST(LayerRoofline, TheRunNamesTheClassesComputedAtTheDefault) {
  const std::vector<models::OpClass> convolutions{models::OpClass::Convolution, models::OpClass::Elementwise};
  const std::vector<models::OpClass> transformer{models::OpClass::Gemm, models::OpClass::Attention,
                                                 models::OpClass::Elementwise};
  EXPECT_EQ(assumed_efficiency_notice({mixed("a100")}, transformer), "");
  EXPECT_EQ(assumed_efficiency_notice({mixed("a100"), mixed("v100")}, convolutions), "");
  const std::string h100 = assumed_efficiency_notice({mixed("h100")}, convolutions);
  EXPECT_NE(h100.find("'h100' (convolution)"), std::string::npos) << h100;
  EXPECT_NE(h100.find("50%"), std::string::npos) << h100;
  const std::string cpu = assumed_efficiency_notice({*scenario::find_builtin_device("cpu")}, {models::OpClass::Gemm});
  EXPECT_NE(cpu.find("'cpu' (gemm)"), std::string::npos) << cpu;
  // A declared efficiency is the user's figure: nothing to say.
  scenario::DeviceProfile declared = *scenario::find_builtin_device("cpu");
  declared.efficiency = 0.3;
  declared.efficiency_assumed = false;
  EXPECT_EQ(assumed_efficiency_notice({declared}, transformer), "");
}

}  // namespace
}  // namespace dtsim::compute
