#pragma once
// One simulated training run, start to finish. Creates the process's SimGrid engine: call once per process.

#include "sim/metrics/run_record.hpp"
#include "sim/runtime/observe/run_observer.hpp"
#include "sim/runtime/setup/training_setup.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::runtime {

/// `observer`, when given, watches the run (see RunObserver).
metrics::RunRecord run_training(const scenario::Scenario& scenario, const TrainingSetup& setup,
                                const ProgressCallback& progress = {}, RunObserver* observer = nullptr);

}  // namespace dtsim::runtime
