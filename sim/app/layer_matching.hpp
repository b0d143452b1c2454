#pragma once
// A layer table's convolutions and linear layers matched, by their weights' shapes, to the operators a
// profiler trace recorded with their input shapes: which of the table's layers the trace ran, how often a
// step, and what it ran that the table lacks.

#include "models/model_profile.hpp"
#include "sim/traces/kineto_trace.hpp"

#include <string>
#include <vector>

namespace dtsim::app {

/// The report's lines: each weight shape the trace ran (how often a step) beside the table's layers with as
/// many parameters (the weights, with or without a bias and a batch normalization's two per channel); the
/// count of table layers matched; the traced operators no layer matches. A line saying so when the trace
/// recorded no shapes. `steps` are the steps counted (their names).
std::string layer_matching_report(const traces::KinetoTrace& trace, const std::vector<std::string>& steps,
                                  const models::ModelProfile& layers);

}  // namespace dtsim::app
