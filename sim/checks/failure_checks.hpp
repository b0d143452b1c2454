#pragma once
// Which failures this version simulates, for which architecture and strategy: everything else is an
// input error that says so, never a silent substitute.

#include "sim/core/diagnostic.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/sync/sync_strategy.hpp"

namespace dtsim::checks {

void check_failures(const scenario::Scenario& s, const sync::SyncStrategy& strategy, core::DiagnosticSink& sink);

}  // namespace dtsim::checks
