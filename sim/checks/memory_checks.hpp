#pragma once
// What each device holds in a timing-only run (models/memory_footprint.hpp for the counts), and the check
// that it fits before anything is simulated.

#include "models/model_profile.hpp"
#include "models/pipeline_plan.hpp"
#include "sim/checks/registries.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/metrics/run_record.hpp"
#include "sim/scenario/scenario.hpp"

#include <vector>

namespace dtsim::checks {

/// Per kind of device (name and precision), in the order of the workers' ranks: what one worker holds.
/// `orders`: where the pipeline orders are kept between calls (a plan's screen); null: built for this call.
std::vector<metrics::DeviceMemory> device_memory(const scenario::Scenario& s, const models::ModelProfile& profile,
                                                 const Registries& registries, models::PassOrders* orders = nullptr);

/// A device that cannot hold its share is an error at `cluster.device` giving the need and the capacity,
/// unless `training.check_memory` is false.
void check_memory(const scenario::Scenario& s, const std::vector<metrics::DeviceMemory>& memory,
                  core::DiagnosticSink& sink);

}  // namespace dtsim::checks
