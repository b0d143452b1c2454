#pragma once
// trace.json: a run's timeline in the Trace Event Format (opens in Perfetto and chrome://tracing). One
// process per followed host (its actors as threads) with compute, communication and waiting spans, flow
// arrows from each message's sender to its receiver, and one "run" process with worker 0's iterations,
// checkpoints, failures, and counters for the losses and the busiest links' utilization.

#include "sim/metrics/run_record.hpp"
#include "sim/metrics/timeline.hpp"

#include <string>

namespace dtsim::metrics {

/// How many link directions get a utilization counter: the most utilized over the run.
inline constexpr std::size_t kTracedLinks = 8;

std::string trace_json(const std::string& run_name, const RunRecord& record, const Timeline& timeline);

}  // namespace dtsim::metrics
