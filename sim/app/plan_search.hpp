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
#include "sim/scenario/scenario_reader.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
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

/// The timing-only model's layer table, or the profile's own error at its key.
models::ModelProfile profile_of(const scenario::Scenario& s, const Registries& registries);

/// A scenario file of `points` (flow-style maps) over the scenario `file`, led by the comment `title`.
std::string points_scenario(const std::string& title, const std::filesystem::path& file,
                            const std::vector<std::string>& points);

/// Where one device count's search reads its scenario from.
struct SearchSource {
  std::filesystem::path scenario_file;          ///< the user's scenario, included by the generated one
  std::filesystem::path generated;              ///< the generated scenario's name, for messages
  std::optional<std::filesystem::path> confine; ///< --confine
};

/// One device count's candidates, screened and estimated.
struct DeviceSearch {
  std::vector<PlanCandidate> candidates;  ///< in enumeration order
  std::int64_t undivided = 0;             ///< data degrees that did not divide the batch
  std::vector<analysis::PlanRow> rows;    ///< screen_candidates's rows
  std::map<std::string, std::size_t> by_split;  ///< a candidate's label -> its place in `candidates`

  /// The candidate `row` stands for.
  [[nodiscard]] const PlanCandidate& candidate_of(const analysis::PlanRow& row) const;
  /// The best row that fits and stands for itself (not another's twin); none when nothing fits.
  [[nodiscard]] const analysis::PlanRow* best() const;
};

/// Every candidate of `space` over `devices` devices for the scenario `base` (the one point of
/// `source.scenario_file`), keeping a global batch of `batch` samples, screened and estimated.
DeviceSearch search_devices(const PlanSpace& space, const SearchLimits& limits, int devices, std::int64_t batch,
                            const scenario::Scenario& base, const models::ModelProfile& profile,
                            const scenario::ScenarioFormat& format, const SearchSource& source,
                            const Registries& registries);

}  // namespace dtsim::app
