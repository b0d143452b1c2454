#pragma once
// One simulated training run, start to finish. Creates the process's SimGrid engine: call once per process.

#include "sim/metrics/run_record.hpp"
#include "sim/runtime/training_setup.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::runtime {

metrics::RunRecord run_training(const scenario::Scenario& scenario, const TrainingSetup& setup,
                                const ProgressCallback& progress = {});

}  // namespace dtsim::runtime
