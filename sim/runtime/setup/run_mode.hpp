#pragma once
// What a training run is, decided once from the scenario when it is resolved, so that the runtime dispatches
// on it (training_run.cpp picks each worker's actor by it) instead of telling runs apart by which of the
// setup's members are null or empty.

#include "sim/scenario/scenario.hpp"

namespace dtsim::runtime {

enum class RunMode {
  DataParallel,         ///< real math: every worker a whole replica, gradients allreduced
  Split,                ///< real math: the model split over devices (a tensor or pipeline degree above 1)
  Experts,              ///< real math: a mixture's experts spread over expert groups (an expert degree above 1)
  ParameterServer,      ///< real math: workers push to and pull from servers
  Hybrid,               ///< real math: dense parameters allreduced, sparse rows through servers
  TimingDataParallel,   ///< a layer table: every worker a whole replica
  TimingModelParallel,  ///< a layer table split over devices
};

/// The mode of `scenario` (a checked one: timing-only models run on an allreduce).
[[nodiscard]] inline RunMode run_mode(const scenario::Scenario& scenario) {
  const bool split = scenario.training.parallelism.is_model_parallel();
  if (scenario.model.timing_only) return split ? RunMode::TimingModelParallel : RunMode::TimingDataParallel;
  switch (scenario.training.architecture) {
    case scenario::Architecture::ParameterServer: return RunMode::ParameterServer;
    case scenario::Architecture::Hybrid: return RunMode::Hybrid;
    case scenario::Architecture::Allreduce: break;
  }
  if (scenario.training.parallelism.expert > 1) return RunMode::Experts;
  return split ? RunMode::Split : RunMode::DataParallel;
}

/// Whether the run's workers compute layer tables' times rather than real values.
[[nodiscard]] inline bool is_timing_only(RunMode mode) {
  return mode == RunMode::TimingDataParallel || mode == RunMode::TimingModelParallel;
}

}  // namespace dtsim::runtime
