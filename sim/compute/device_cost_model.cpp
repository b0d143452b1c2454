#include "sim/compute/device_cost_model.hpp"

#include "sim/compute/gemm_shape.hpp"

#include "sim/core/name_match.hpp"
#include "sim/scenario/device_catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <stdexcept>

namespace dtsim::compute {

core::FlopsPerSecond sustained_rate(const scenario::DeviceProfile& device) {
  if (!device.peak_in(device.precision)) {
    throw std::logic_error(fmt::format("precision {} on a device without its peak", to_string(device.precision)));
  }
  return device.peak() * device.efficiency_of(models::OpClass::Gemm);
}

core::Seconds compute_time(double flops, const scenario::DeviceProfile& device) {
  return core::Seconds(flops / sustained_rate(device).value());
}

double roofline_flops(double flops, double bytes, const scenario::DeviceProfile& device) {
  if (!device.memory_bandwidth || bytes <= 0.0) return flops;
  return std::max(flops, bytes * sustained_rate(device).value() / device.memory_bandwidth->value());
}

namespace {

/// Seconds of the layer's products (or their own memory traffic, when longer) and of its memory-bound
/// kernels, for a step of `batch` samples.
struct LayerTimes {
  double products = 0.0;
  double forward_kernels = 0.0;
  double backward_kernels = 0.0;
};

/// Whether `layer`'s products run in the device's FP8 or FP4 precision: a matrix product the recipe quantizes.
bool quantized_products(const models::LayerProfile& layer, const scenario::DeviceProfile& device) {
  return scenario::quantized(device.precision) && layer.op == models::OpClass::Gemm && !layer.keeps_16_bits;
}

/// The peak `layer`'s FLOPs run at: its class's, except the products a recipe keeps in 16 bits and the
/// convolutions (no framework's FP8 recipe quantizes them), which take the 16-bit peak.
double layer_peak(const models::LayerProfile& layer, const scenario::DeviceProfile& device) {
  if (scenario::quantized(device.precision) && !quantized_products(layer, device) &&
      layer.op != models::OpClass::Elementwise) {
    return device.half_peak().value();
  }
  return device.peak_of(layer.op).value();
}

/// Seconds of the scaling and quantizing kernels around a quantized layer's products, by pass, for a step of
/// `batch` samples: the forward pass quantizes each product's input, the backward its output's gradient, each
/// read in 16 bits and written as the quantized copies the recipe's products take (quantization_bytes). The
/// weights are quantized once an iteration (Transformer Engine keeps their copies across micro-batches), not
/// counted. A routed layer's `parameters` / (columns x depth) products each take `rows` of its tokens.
std::pair<double, double> quantization_seconds(const models::LayerProfile& layer, double batch,
                                               const scenario::DeviceProfile& device, double bandwidth) {
  if (!quantized_products(layer, device) || layer.gemm.rows <= 0.0) return {0.0, 0.0};
  const double products = std::max(1.0, std::round(layer.parameters / (layer.gemm.columns * layer.gemm.depth)));
  const double rows = layer.gemm.rows * products * batch;
  const double bytes = quantization_bytes(device);
  return {rows * layer.gemm.depth * bytes / bandwidth, rows * layer.gemm.columns * bytes / bandwidth};
}

LayerTimes layer_times(const models::LayerProfile& layer, double batch, const scenario::DeviceProfile& device) {
  const double flops = (layer.forward_flops + layer.backward_flops) * batch;
  double rate = layer_peak(layer, device) * device.efficiency_of(layer.op);
  if (layer.op == models::OpClass::Gemm && layer.gemm.rows > 0.0 && device.multiprocessors) {
    rate *= training_gemm_factor(layer.gemm.rows * batch, layer.gemm.columns, layer.gemm.depth);
  }
  // The host's time per layer and pass: the device idles while the framework launches the layer's kernels.
  LayerTimes out{flops / rate, device.layer_overhead_s, device.layer_overhead_s};
  if (!device.memory_bandwidth) return out;
  // Activations are kept and moved in 16 bits under every reduced precision (the quantized recipes' products
  // write 16-bit outputs).
  const double element = scenario::reduced(device.precision) ? 0.5 : 1.0;
  // Memory moves at the fraction of the data sheet's bandwidth that memory-bound kernels sustain: the
  // elementwise class's efficiency.
  const double bandwidth = device.memory_bandwidth->value() * device.efficiency_of(models::OpClass::Elementwise);
  const double bytes = 3.0 * element * layer.activation_bytes * batch + 16.0 * layer.parameters;
  out.products = std::max(out.products, bytes / bandwidth);
  const auto [forward_scaling, backward_scaling] = quantization_seconds(layer, batch, device, bandwidth);
  out.forward_kernels += element * layer.forward_traffic * batch / bandwidth + forward_scaling;
  out.backward_kernels += element * layer.backward_traffic * batch / bandwidth + backward_scaling;
  return out;
}

}  // namespace

double quantization_bytes(const scenario::DeviceProfile& device) {
  using P = scenario::ComputePrecision;
  // Transformer Engine's quantizers (docs/how-it-works.md, "Precision"): each reads the 16-bit tensor once, or twice
  // where a pass for its amax comes first (current scaling, NVFP4) or where it quantizes the row-wise and the
  // column-wise copies apart (1x128 blocks); each writes the copies the products take with their scales. The
  // per-tensor recipes write a transposed copy for the weight gradient on Hopper, one copy on Blackwell,
  // whose tensor cores take either layout.
  const double per_tensor_copies = device.fp4_generation() ? 1.0 : 2.0;
  const auto bytes = [](double reads, double copies, double written) { return 2.0 * reads + copies * written; };
  switch (device.precision) {
    case P::fp8_delayed: return bytes(1, per_tensor_copies, 1.0);
    case P::fp8_current: return bytes(2, per_tensor_copies, 1.0);
    case P::fp8_blockwise: return bytes(2, 2, 1.0 + 4.0 / 128.0);  // an FP32 scale per 128 values
    case P::mxfp8: return bytes(1, 2, 1.0 + 1.0 / 32.0);           // an E8M0 scale per 32 values
    case P::nvfp4: return bytes(2, 2, 0.5 + 1.0 / 16.0);           // an E4M3 scale per 16 values
    default: return 0.0;
  }
}

double layer_seconds(const models::LayerProfile& layer, double batch, const scenario::DeviceProfile& device) {
  const LayerTimes t = layer_times(layer, batch, device);
  return t.products + t.forward_kernels + t.backward_kernels;
}

ClassSeconds class_seconds(const models::ModelProfile& layers, double batch, const scenario::DeviceProfile& device) {
  ClassSeconds out;
  for (const models::LayerProfile& layer : layers.layers) {
    const LayerTimes t = layer_times(layer, batch, device);
    out.products[static_cast<std::size_t>(layer.op)] += t.products;
    out.kernels += t.forward_kernels + t.backward_kernels - 2.0 * device.layer_overhead_s;
  }
  return out;
}

models::ModelProfile host_flops(const models::ModelProfile& layers, double batch, const scenario::DeviceProfile& device) {
  const double rate = sustained_rate(device).value();
  models::ModelProfile out = layers;
  for (models::LayerProfile& layer : out.layers) {
    const LayerTimes t = layer_times(layer, batch, device);
    const double flops = layer.forward_flops + layer.backward_flops;
    // A layer that only moves memory: one pass of three forward, two backward, as its traffic is.
    const double forward_share = flops > 0.0 ? layer.forward_flops / flops : 1.0 / 3.0;
    layer.forward_flops = (t.products * forward_share + t.forward_kernels) * rate;
    layer.backward_flops = (t.products * (1.0 - forward_share) + t.backward_kernels) * rate;
  }
  return out;
}

std::vector<models::OpClass> assumed_classes(const scenario::DeviceProfile& device, const std::vector<models::OpClass>& used) {
  std::vector<models::OpClass> out;
  if (!device.efficiency_assumed) return out;
  for (const models::OpClass op : used) {
    if (!device.class_efficiency[static_cast<std::size_t>(op)] && std::find(out.begin(), out.end(), op) == out.end()) {
      out.push_back(op);
    }
  }
  return out;
}

std::string assumed_efficiency_notice(const std::vector<scenario::DeviceProfile>& devices,
                                      const std::vector<models::OpClass>& used) {
  std::vector<std::string> parts;
  for (const scenario::DeviceProfile& device : devices) {
    const std::vector<models::OpClass> assumed = assumed_classes(device, used);
    if (assumed.empty()) continue;
    std::vector<std::string> keys;
    for (const models::OpClass op : assumed) keys.emplace_back(models::key_of(op));
    parts.push_back(fmt::format("'{}' ({})", device.name, core::join_names(keys)));
  }
  if (parts.empty()) return "";
  return fmt::format("no published sustained efficiency for {}: computed at {:.0f}% of the peak, the documented "
                     "default (docs/how-it-works.md); declare cluster.devices.<name>.efficiency or .efficiencies "
                     "with your own measurement, or fit them with dtsim calibrate",
                     fmt::join(parts, ", "), 100.0 * scenario::kAssumedEfficiency);
}

}  // namespace dtsim::compute
