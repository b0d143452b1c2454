#include "sim/compute/device_cost_model.hpp"

namespace dtsim::compute {

core::FlopsPerSecond sustained_rate(const scenario::DeviceProfile& device) {
  return device.peak_flops * device.efficiency;
}

core::Seconds compute_time(double flops, const scenario::DeviceProfile& device) {
  return core::Seconds(flops / sustained_rate(device).value());
}

}  // namespace dtsim::compute
