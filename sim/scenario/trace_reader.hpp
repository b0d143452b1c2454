#pragma once
// What changes the cluster's links and devices over time: traces (`stragglers[].trace`, `link_traces[]`:
// inline points or a CSV file of time,factor rows, optionally periodic) and background traffic.

#include "sim/core/diagnostic.hpp"
#include "sim/scenario/config_view.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::scenario {

/// The most times a periodic trace may change its factor per simulated second. Every change is an event
/// of the simulation (some 0.3 us of wall time each): a period of nanoseconds would take hours of wall
/// time per simulated second, a run that seems to hang.
inline constexpr double kTraceChangesPerSecondLimit = 1e6;

/// The trace a `{points | file, period}` mapping declares; a file is read relative to the file that names it.
/// Problems (unreadable file, bad rows, times not increasing, a period not past the last point, a period
/// that repeats the points faster than kTraceChangesPerSecondLimit) go to `sink`.
Trace read_trace(const View& trace, core::DiagnosticSink& sink);

/// Per worker rank, the speed trace of the straggler rules that have one (a worker may have one at most).
std::vector<Trace> read_speed_traces(const View& root, int workers, core::DiagnosticSink& sink);

/// `link_traces`, with link names left to be checked against the topology.
std::vector<LinkTrace> read_link_traces(const View& root, core::DiagnosticSink& sink);

/// `background_traffic`, with link names left to be checked against the topology.
std::vector<BackgroundTraffic> read_background_traffic(const View& root);
/// `link_conditions`: each rule's links, class and loss.
std::vector<LinkCondition> read_link_conditions(const View& root);

}  // namespace dtsim::scenario
