#pragma once
// Simulations a calibration runs many of, each in a child process: SimGrid runs one engine per process.

#include "models/model_profile.hpp"
#include "sim/checks/registries.hpp"
#include "sim/scenario/scenario.hpp"

#include <functional>
#include <string>
#include <vector>

namespace dtsim::app {

/// What `work` returns, computed in a child process. Its exceptions come back as the error of the
/// simulation of `name` (std::runtime_error).
std::string in_child_process(const std::string& name, const std::function<std::string()>& work);

/// Seconds per iteration of `s`, simulated in a child process; with `workload`, that layer table in place of
/// the scenario's model (a replayed trace), cut into pipeline stages at `stage_layers` (each stage's first
/// layer, then the count) where given, else as the scenario cuts its own.
double simulate_iteration(const scenario::Scenario& s, const checks::Registries& registries,
                          const models::ModelProfile* workload = nullptr,
                          const std::vector<std::size_t>& stage_layers = {});

}  // namespace dtsim::app
