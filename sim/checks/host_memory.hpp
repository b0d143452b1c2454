#pragma once
// The memory a real-math run holds on this machine, checked before any of it is allocated: an MLP of two
// layers of a million units (4 TB of weights per worker) is refused with what it needs and what the machine
// has, as the device-memory check refuses a model too large for its GPU, instead of being killed.

#include "models/trainable_model.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/scenario/scenario.hpp"

#include <optional>

namespace dtsim::checks {

/// Bytes of memory this machine can still give (MemAvailable of /proc/meminfo, else the physical memory).
std::optional<double> available_host_memory();

/// Bytes the run's real-math state holds at least: every worker's parameters, gradient and optimizer or held
/// state, and the servers' copies, at 4 bytes a value.
double real_math_bytes(const scenario::Scenario& s, const models::TrainableModel& model);

/// Reports, at `model.kind`, a run whose real-math state needs more than `available` bytes.
void check_host_memory(const scenario::Scenario& s, const models::TrainableModel& model, std::optional<double> available,
                       core::DiagnosticSink& sink);

}  // namespace dtsim::checks
