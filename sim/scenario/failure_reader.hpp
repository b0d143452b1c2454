#pragma once
// `failures`: worker failures at given times or at random, checkpoints, and how training recovers.

#include "sim/core/diagnostic.hpp"
#include "sim/scenario/config_view.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::scenario {

/// The `failures` mapping (disabled when absent). Worker ranks are checked with the straggler rules.
FailureSpec read_failures(const View& root, const ClusterSpec& cluster, core::DiagnosticSink& sink);

}  // namespace dtsim::scenario
