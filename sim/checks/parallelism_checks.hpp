#pragma once
// The checks of `training.parallelism` against the rest of the scenario: model parallelism (tensor groups
// and pipelines) on the models, strategies and schedules that can run it, micro-batches that divide the batch
// and simulate in reasonable time, and without model parallelism, what needs it.

#include "models/model_profile.hpp"
#include "sim/checks/registries.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/sync/sync_strategy.hpp"

namespace dtsim::checks {

/// Adds to `sink` what `s`'s parallelism cannot run; `profile` is the timing-only model's layer table (null for
/// a model trained for real, or a profile that could not be built: its own problem is reported elsewhere).
void check_model_parallel(const scenario::Scenario& s, const sync::SyncStrategy& strategy,
                          const models::ModelProfile* profile, const Registries& registries, core::DiagnosticSink& sink);

}  // namespace dtsim::checks
