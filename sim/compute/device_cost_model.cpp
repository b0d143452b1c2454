#include "sim/compute/device_cost_model.hpp"

#include <stdexcept>

namespace dtsim::compute {

core::FlopsPerSecond sustained_rate(const scenario::DeviceProfile& device) {
  if (device.precision == "mixed") {
    if (!device.half_flops) throw std::logic_error("mixed precision on a device without half_flops");
    return *device.half_flops * device.efficiency;
  }
  return device.peak_flops * device.efficiency;
}

core::Seconds compute_time(double flops, const scenario::DeviceProfile& device) {
  return core::Seconds(flops / sustained_rate(device).value());
}

}  // namespace dtsim::compute
