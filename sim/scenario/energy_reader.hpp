#pragma once
// `energy`: prices, grid intensity, static and link power; and the device powers it needs.

#include "sim/core/diagnostic.hpp"
#include "sim/scenario/config_view.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::scenario {

/// The `energy` mapping (disabled when absent). Reports a device of `cluster` without an idle or busy power.
EnergySpec read_energy(const View& root, const ClusterSpec& cluster, bool has_servers, core::DiagnosticSink& sink);

}  // namespace dtsim::scenario
