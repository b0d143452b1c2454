#include "sim/compute/device_cost_model.hpp"

#include "sim/compute/gemm_shape.hpp"

#include "sim/core/name_match.hpp"
#include "sim/scenario/device_catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace dtsim::compute {

core::FlopsPerSecond sustained_rate(const scenario::DeviceProfile& device) {
  if (device.precision == scenario::ComputePrecision::mixed && !device.half_flops) {
    throw std::logic_error("mixed precision on a device without half_flops");
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

LayerTimes layer_times(const models::LayerProfile& layer, double batch, const scenario::DeviceProfile& device) {
  const double flops = (layer.forward_flops + layer.backward_flops) * batch;
  double rate = device.peak_of(layer.op).value() * device.efficiency_of(layer.op);
  if (layer.op == models::OpClass::Gemm && layer.gemm.rows > 0.0 && device.multiprocessors) {
    rate *= training_gemm_factor(layer.gemm.rows * batch, layer.gemm.columns, layer.gemm.depth);
  }
  LayerTimes out{flops / rate, 0.0, 0.0};
  if (!device.memory_bandwidth) return out;
  const double element = device.precision == scenario::ComputePrecision::mixed ? 0.5 : 1.0;
  // Memory moves at the fraction of the data sheet's bandwidth that memory-bound kernels sustain: the
  // elementwise class's efficiency.
  const double bandwidth = device.memory_bandwidth->value() * device.efficiency_of(models::OpClass::Elementwise);
  const double bytes = 3.0 * element * layer.activation_bytes * batch + 16.0 * layer.parameters;
  out.products = std::max(out.products, bytes / bandwidth);
  out.forward_kernels = element * layer.forward_traffic * batch / bandwidth;
  out.backward_kernels = element * layer.backward_traffic * batch / bandwidth;
  return out;
}

}  // namespace

double layer_seconds(const models::LayerProfile& layer, double batch, const scenario::DeviceProfile& device) {
  const LayerTimes t = layer_times(layer, batch, device);
  return t.products + t.forward_kernels + t.backward_kernels;
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
