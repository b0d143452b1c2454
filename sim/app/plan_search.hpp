#pragma once
// One device count's search: every candidate split (plan_candidates.hpp) run through the checks a scenario's
// split must pass (scenario_resolver.hpp's check_split, then the memory model: app::device_memory and
// check_memory, exactly as `dtsim run` refuses a split), and the ones that pass estimated (plan_estimate.hpp)
// and ordered, fastest first.

#include "analysis/plan_report.hpp"
#include "models/model_profile.hpp"
#include "sim/app/plan_candidates.hpp"
#include "sim/app/registries.hpp"
#include "sim/scenario/scenario.hpp"

#include <optional>
#include <vector>

namespace dtsim::app {

struct SearchLimits {
  std::optional<double> max_memory_bytes;  ///< `--max-memory`: below the devices' own capacity
};

/// Screens `candidates` on `s` (a scenario over their devices, whose split each candidate replaces in turn;
/// left split as the last one) and returns one row per candidate: those that fit ordered by their estimated
/// iteration (ties by their split's name), then the discarded, in enumeration order, each with its reason.
std::vector<analysis::PlanRow> screen_candidates(const std::vector<PlanCandidate>& candidates, std::int64_t batch,
                                                 scenario::Scenario& s, const models::ModelProfile& profile,
                                                 const Registries& registries, const SearchLimits& limits);

/// A candidate's row before screening: its split, described.
analysis::PlanRow row_of(const PlanCandidate& candidate);

}  // namespace dtsim::app
