#pragma once
// `jobs:` and `scheduler:`: several jobs on the one cluster. Each job is read as a scenario of its own: the
// document with the job's model, data and training in place of the top level's (a job that names a model and no
// data has none) and cluster.workers its device count, validated and built as any scenario is, so that a job's
// mistakes are reported at its own lines.

#include "sim/core/diagnostic.hpp"
#include "sim/scenario/config_node.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/scenario_format.hpp"

#include <string>

namespace dtsim::scenario {

/// Fills `s.jobs` and `s.scheduler` from `raw` (the point's document as written, sweep values set) and
/// `s.resolved` (the same, validated); problems go to `sink`.
void read_jobs(const ScenarioFormat& format, const ConfigNode& raw, const std::string& source, Scenario& s,
               core::DiagnosticSink& sink);

}  // namespace dtsim::scenario
