#pragma once
// How long computation takes on a device: each layer by its own roofline, max(FLOPs / (its class's peak x
// efficiency), bytes / memory bandwidth), then its memory-bound kernels' bytes / memory bandwidth.

#include "models/model_profile.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/scenario.hpp"

#include <array>
#include <string>
#include <vector>

namespace dtsim::compute {

/// The rate a device sustains on dense matrix products: peak x their efficiency, the peak being half_flops
/// under mixed precision. This is the speed given to the device's SimGrid host, so that executing F FLOPs
/// there takes F / sustained_rate seconds of simulated time.
core::FlopsPerSecond sustained_rate(const scenario::DeviceProfile& device);

/// Simulated duration of `flops` floating-point operations on `device`.
core::Seconds compute_time(double flops, const scenario::DeviceProfile& device);

/// The FLOPs to execute on the device's host (which runs at the sustained rate) for work of `flops`
/// operations moving `bytes` to and from memory: max(flops, bytes x sustained rate / memory bandwidth), so
/// that the simulated time is the roofline's. Without a declared memory bandwidth, `flops`.
double roofline_flops(double flops, double bytes, const scenario::DeviceProfile& device);

/// Bytes of memory traffic per element the quantizing kernels of `device`'s precision move for a product's
/// input or output gradient (0 for the 16- and 32-bit precisions).
double quantization_bytes(const scenario::DeviceProfile& device);

/// Seconds of one training step of `batch` samples through `layer` on `device`: its forward and backward
/// FLOPs at its class's peak x efficiency, or its products' memory traffic (activations written once and
/// read twice, half of them under mixed precision; weights read twice, their gradient written and read: 16
/// bytes per parameter) over the memory bandwidth, whichever is longer; plus the traffic of its memory-bound
/// kernels (LayerProfile::forward_traffic and backward_traffic, halved under mixed precision) over the
/// memory bandwidth.
double layer_seconds(const models::LayerProfile& layer, double batch, const scenario::DeviceProfile& device);

/// Seconds of a step of `batch` samples through `layers` on `device`, by what computes them: each operation
/// class's products (their roofline, as layer_seconds times them), and the memory-bound kernels between
/// them. The host's overhead per layer and pass (`layer_overhead`) is in neither.
struct ClassSeconds {
  std::array<double, models::kOpClasses> products{};
  double kernels = 0.0;
};
ClassSeconds class_seconds(const models::ModelProfile& layers, double batch, const scenario::DeviceProfile& device);

/// `layers` with each layer's forward and backward FLOPs replaced by the FLOPs its host executes for a step
/// of `batch` samples (its roofline time x the sustained rate): its products' time split between the passes
/// as its FLOPs are, each pass's kernels to that pass.
/// Charging these to the host gives each layer its own roofline's time.
models::ModelProfile host_flops(const models::ModelProfile& layers, double batch, const scenario::DeviceProfile& device);

/// The operation classes whose efficiency `device` takes from the documented default, among `used`.
std::vector<models::OpClass> assumed_classes(const scenario::DeviceProfile& device, const std::vector<models::OpClass>& used);

/// One line naming every device of `devices` (one profile per device model) that computes some class of
/// `used` at the default efficiency, with what to declare instead; empty when none does.
std::string assumed_efficiency_notice(const std::vector<scenario::DeviceProfile>& devices,
                                      const std::vector<models::OpClass>& used);

}  // namespace dtsim::compute
