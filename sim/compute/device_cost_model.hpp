#pragma once
// How long computation takes on a device: time = FLOPs / (peak FLOP/s x efficiency).

#include "sim/core/units.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::compute {

/// The rate a device sustains: peak x efficiency. This is the speed given to the device's SimGrid host,
/// so that executing F FLOPs there takes F / sustained_rate seconds of simulated time.
core::FlopsPerSecond sustained_rate(const scenario::DeviceProfile& device);

/// Simulated duration of `flops` floating-point operations on `device`.
core::Seconds compute_time(double flops, const scenario::DeviceProfile& device);

/// FLOPs of one worker's training step: forward and backward over the batch, then the optimizer update.
struct StepCost {
  double gradient_flops = 0.0;
  double update_flops = 0.0;
};

StepCost step_cost(double flops_per_sample, int batch, double update_flops);

}  // namespace dtsim::compute
