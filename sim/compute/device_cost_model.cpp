#include "sim/compute/device_cost_model.hpp"

namespace dtsim::compute {

core::FlopsPerSecond sustained_rate(const scenario::DeviceProfile& device) {
  return device.peak_flops * device.efficiency;
}

core::Seconds compute_time(double flops, const scenario::DeviceProfile& device) {
  return core::Seconds(flops / sustained_rate(device).value());
}

StepCost step_cost(double flops_per_sample, int batch, double update_flops) {
  return StepCost{flops_per_sample * batch, update_flops};
}

}  // namespace dtsim::compute
