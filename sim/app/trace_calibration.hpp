#pragma once
// `dtsim calibrate TRACE --scenario S`: a PyTorch profiler trace of a few training steps on one GPU, its
// kernels attributed to dtsim's operation classes, and the device fragment (efficiencies by class, the host's
// overhead per layer and pass) that makes S's model on S's device take the traced step.

#include "sim/app/calibrate_command.hpp"
#include "sim/checks/registries.hpp"

#include <filesystem>

namespace dtsim::app {

/// Whether `path` is a profiler trace (JSON, plain or gzipped) rather than a table or nccl-tests output.
bool is_profiler_trace(const std::filesystem::path& path);

/// Attributes the trace `options.measurements` and fits the fragment for the scenario `options.scenario`
/// (required: a timing-only profile without pipeline stages). Throws core::InputError for a bad trace or
/// scenario, and for an `output` that is one of the inputs, before any simulation.
Calibration calibrate_from_trace(const CalibrateOptions& options, const checks::Registries& registries);

}  // namespace dtsim::app
