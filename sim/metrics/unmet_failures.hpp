#pragma once
// Failures a scenario declares at fixed times that the run never met: timed after the run had finished (or
// after the job had stopped). They are listed, so that a failure that changed nothing is never mistaken
// for one the job survived.

#include "sim/metrics/run_record.hpp"
#include "sim/scenario/scenario.hpp"

#include <string>
#include <vector>

namespace dtsim::metrics {

struct UnmetFailure {
  std::string what;  ///< "worker 3", "server 0", "link w0--s0"
  double at_s = 0.0;
};

/// The declared failures (`failures.events`) missing from the record's failures and link events, in
/// declaration order: workers, then servers, then links.
std::vector<UnmetFailure> unmet_failures(const scenario::FailureSpec& spec, const RunRecord& record);

}  // namespace dtsim::metrics
