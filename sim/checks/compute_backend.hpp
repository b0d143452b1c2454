#pragma once
// Where the real math runs (`training.backend`): Eigen on the CPU, or the CUDA backend when this build has
// it and a device is present.

#include "models/model_plugin.hpp"
#include "models/trainable_model.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/scenario/scenario.hpp"

#include <string>

namespace dtsim::checks {

/// Whether the CUDA backend module loads (it is loaded on this first call, never at start-up), and the CUDA
/// devices it sees.
bool built_with_cuda();
int cuda_devices();

/// Reports `backend: cuda` where it cannot run: a build without CUDA, no device, a model it does not compute.
void check_backend(const scenario::Scenario& s, const models::ModelRegistry& models, core::DiagnosticSink& sink);

/// Hands `model` to the CUDA backend when the scenario asks for it (cuda), or allows it (auto) and a device
/// is present. Returns the one-line notice for a run that could have used CUDA and computes on the CPU
/// instead (auto without a device or without CUDA in the build), else "".
std::string apply_backend(const scenario::Scenario& s, const models::ModelRegistry& models, models::TrainableModel& model);

}  // namespace dtsim::checks
