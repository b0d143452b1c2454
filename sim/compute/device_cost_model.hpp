#pragma once
// How long computation takes on a device: the roofline max(FLOPs / (peak x efficiency), bytes / memory bandwidth).

#include "sim/core/units.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::compute {

/// The rate a device sustains: peak x efficiency, the peak being half_flops under mixed precision. This is the speed given to the device's SimGrid host,
/// so that executing F FLOPs there takes F / sustained_rate seconds of simulated time.
core::FlopsPerSecond sustained_rate(const scenario::DeviceProfile& device);

/// Simulated duration of `flops` floating-point operations on `device`.
core::Seconds compute_time(double flops, const scenario::DeviceProfile& device);

/// The FLOPs to execute on the device's host (which runs at the sustained rate) for work of `flops`
/// operations moving `bytes` to and from memory: max(flops, bytes x sustained rate / memory bandwidth), so
/// that the simulated time is the roofline's. Without a declared memory bandwidth, `flops`.
double roofline_flops(double flops, double bytes, const scenario::DeviceProfile& device);

}  // namespace dtsim::compute
