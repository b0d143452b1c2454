#pragma once
// The human-readable summary printed at the end of `dtsim run`.

#include "sim/metrics/run_record.hpp"
#include "sim/scenario/scenario.hpp"

#include <string>

namespace dtsim::analysis {

/// Scenario in one line per section, the result, and one row per host (compute / communication / wait /
/// bytes sent). `wall_s` is printed for the user's information only; it never enters result files.
std::string summary_table(const scenario::Scenario& scenario, const metrics::RunRecord& record, double wall_s);

}  // namespace dtsim::analysis
