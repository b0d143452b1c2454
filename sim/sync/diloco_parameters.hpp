#pragma once
// The parameters DiLoCo and Streaming DiLoCo share under `training.sync`, declared once: a key means one thing
// in every strategy that takes it.

#include "sim/core/parameter_values.hpp"
#include "sim/core/schema.hpp"
#include "sim/sync/sync_strategy.hpp"

#include <vector>

namespace dtsim::sync {

/// inner_steps (required), outer_learning_rate, outer_momentum, nesterov and inner_sync.
std::vector<core::SchemaNode> diloco_parameters();
/// The outer optimizer the values of diloco_parameters() give.
OuterOptimizer outer_optimizer_of(const core::ParameterValues& values);
/// Whether they say the sites take the inner steps together.
bool inner_sync_by_site(const core::ParameterValues& values);
/// The rule of those values alone: an outer momentum below 1.
void check_outer_momentum(const core::ParameterValues& values, core::DiagnosticSink& sink);

}  // namespace dtsim::sync
