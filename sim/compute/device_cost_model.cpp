#include "sim/compute/device_cost_model.hpp"

#include <algorithm>
#include <stdexcept>

namespace dtsim::compute {

core::FlopsPerSecond sustained_rate(const scenario::DeviceProfile& device) {
  if (device.precision == "mixed" && !device.half_flops) {
    throw std::logic_error("mixed precision on a device without half_flops");
  }
  return device.peak() * device.efficiency;
}

core::Seconds compute_time(double flops, const scenario::DeviceProfile& device) {
  return core::Seconds(flops / sustained_rate(device).value());
}

double roofline_flops(double flops, double bytes, const scenario::DeviceProfile& device) {
  if (!device.memory_bandwidth || bytes <= 0.0) return flops;
  return std::max(flops, bytes * sustained_rate(device).value() / device.memory_bandwidth->value());
}

}  // namespace dtsim::compute
