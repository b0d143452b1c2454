#pragma once
// One device count's search: every candidate split (plan_candidates.hpp) run through the checks a scenario's
// split must pass (scenario_resolver.hpp's check_split, then the memory model: checks::device_memory and
// check_memory, exactly as `dtsim run` refuses a split), and the ones that pass estimated (plan_estimate.hpp)
// and ordered, fastest first. search_devices screens each candidate as it is enumerated and holds the best only
// (PlanTally), so that a space of millions searches in bounded memory.

#include "analysis/plan_report.hpp"
#include "models/model_profile.hpp"
#include "sim/checks/registries.hpp"
#include "sim/plan/plan_candidates.hpp"
#include "sim/scenario/parallel_axes.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::planner {

/// The largest int for every axis: no bound.
[[nodiscard]] constexpr scenario::AxisDegrees unbounded_degrees() {
  scenario::AxisDegrees out{};
  out.fill(std::numeric_limits<int>::max());
  return out;
}

/// The largest value a scenario takes for each count a candidate sets (the schema's bounds on the keys of
/// training.parallelism): a candidate beyond one is no scenario at all, and is discarded as a run refuses it.
struct DegreeBounds {
  /// Each axis's, by scenario::axis_index.
  scenario::AxisDegrees degrees = unbounded_degrees();
  int microbatches = std::numeric_limits<int>::max();
  int virtual_stages = std::numeric_limits<int>::max();

  [[nodiscard]] int degree(scenario::ParallelAxis axis) const { return degrees[scenario::axis_index(axis)]; }
  [[nodiscard]] int& degree(scenario::ParallelAxis axis) { return degrees[scenario::axis_index(axis)]; }
};

/// The bounds `format`'s schema declares.
DegreeBounds degree_bounds(const scenario::ScenarioFormat& format);

/// Refuses a degree or count that `space` fixes above its bound (`--pipeline 4096` where a scenario takes 1,024
/// stages at most), at the flag, as `command` ("dtsim plan") was given it: every candidate would be discarded.
void check_space_bounds(const PlanSpace& space, const DegreeBounds& bounds, const std::string& command);

/// Refuses, at the flag as `command` ("dtsim plan") was given it, a `--max-memory` above the memory of every device
/// `base` runs its workers on, where the run checks memory (training.check_memory): each candidate is held to its
/// devices' own memory already, and a cap above it would change nothing unsaid.
void check_memory_cap(const std::optional<double>& max_memory_bytes, const scenario::Scenario& base,
                      const std::string& command);

/// The candidates one device count's search screens at most: a space past it is refused before any is screened. A
/// candidate takes 20 to 200 us to screen on the 2-core machine (GPT-3 175B on 256 A100: 222,960 in 4.6 s; a GPT of
/// 8,192-token sequences and a batch of 1,290,240 on 4,096 H100, whose micro-batch counts run into the thousands:
/// 1.6 million of its 12.7 million in 300 s), so 2 million is a search of one to several minutes; beyond, the hint
/// says which choices to fix. docs/planning.md.
inline constexpr std::int64_t kMostCandidates = 2'000'000;

struct SearchLimits {
  std::optional<double> max_memory_bytes;  ///< `--max-memory`: below the devices' own capacity
  DegreeBounds bounds;                     ///< search_devices sets the scenario format's
  /// The fitting candidates search_devices keeps, the best by estimate (with their twins and the front none beats
  /// with less memory); the others' rows are set aside. At least the plan's `--top`.
  std::size_t keep = analysis::kDrawnCandidates;
  /// Splits kept wherever their estimate ranks them (the scenario's own, which a plan simulates beside the best).
  std::set<std::string> pinned;
  std::int64_t most_candidates = kMostCandidates;  ///< a count with more is refused (refuse_large_space)
};

/// Screens `candidates` on `s` (a scenario over their devices, whose split each candidate replaces in turn;
/// left split as the last one) and returns one row per candidate: those that fit ordered by their estimated
/// iteration (ties by their split's name), then the discarded, in enumeration order, each with its reason.
std::vector<analysis::PlanRow> screen_candidates(const std::vector<PlanCandidate>& candidates, std::int64_t batch,
                                                 scenario::Scenario& s, const models::ModelProfile& profile,
                                                 const checks::Registries& registries, const SearchLimits& limits);

/// A candidate's row before screening: its split, described.
analysis::PlanRow row_of(const PlanCandidate& candidate);

/// The candidate `row` (row_of's, screened or not) describes, read back from its fields.
PlanCandidate candidate_of_row(const analysis::PlanRow& row);

/// One device count's screened rows in bounded memory, however many stream through: the `keep` best estimates
/// that fit (each with its twins, marked as screen_candidates marks them), the front of those none beats with less
/// memory, and the discards counted by reason with their first example. Every other row is set aside in `spill`
/// as it goes (a fitting row once `keep` better estimates are held, a front row once another beats it).
class PlanTally {
 public:
  /// `spill` must outlive the tally. A fitting row of a `pinned` split is kept whatever its estimate.
  PlanTally(std::size_t keep, analysis::RowSpill& spill, std::set<std::string> pinned = {})
      : keep_(keep), spill_(spill), pinned_(std::move(pinned)) {}

  void add(analysis::PlanRow row);
  /// The rows held, all fitting, as screen_candidates orders them (by estimate, memory, split).
  [[nodiscard]] std::vector<analysis::PlanRow> rows() const;
  /// The discards by reason, with the splits whose data degree does not divide the batch (analysis::count_discards).
  [[nodiscard]] std::vector<analysis::PlanDiscard> discards(std::int64_t undivided, std::int64_t batch) const;
  [[nodiscard]] std::int64_t screened() const { return screened_; }
  [[nodiscard]] std::int64_t fitting() const { return fitting_; }
  /// The least estimate of an iteration so far, seconds; 0 before one fits.
  [[nodiscard]] double best_estimate_s() const { return best_.empty() ? 0.0 : best_.begin()->first; }

 private:
  /// Whether `row` is among the best held by estimate.
  [[nodiscard]] bool held(const analysis::PlanRow& row) const;
  void offer_front(const analysis::PlanRow& row);
  /// Sets aside a fitting row the tally no longer holds: into the spill, or among the pinned.
  void set_aside(const analysis::PlanRow& row);

  std::size_t keep_;
  analysis::RowSpill& spill_;
  std::set<std::string> pinned_;
  std::vector<analysis::PlanRow> pinned_rows_;             ///< pinned rows neither the best nor the front holds
  std::map<double, std::vector<analysis::PlanRow>> best_;  ///< by estimate, least memory first (then by split)
  std::map<double, analysis::PlanRow> front_;              ///< by memory, the estimated throughput rising with it
  std::map<std::string, analysis::PlanDiscard> discards_;  ///< by reason, the first discarded for it the example
  std::int64_t screened_ = 0;
  std::int64_t fitting_ = 0;
};

/// The timing-only model's layer table, or the profile's own error at its key.
models::ModelProfile profile_of(const scenario::Scenario& s, const checks::Registries& registries);

/// `text` as a YAML (and JSON) double-quoted string in ASCII: line breaks, control characters and Unicode
/// line separators are escaped, so that a file name embedded in a generated file can add no key or line.
std::string yaml_quoted(std::string_view text);

/// A scenario file of `points` (flow-style maps) over the scenario `file`, led by the comment `title`.
std::string points_scenario(const std::string& title, const std::filesystem::path& file,
                            const std::vector<std::string>& points);

/// How far one device count's search has got, for a progress line.
struct SearchProgress {
  int devices = 0;
  std::int64_t screened = 0;
  std::int64_t total = 0;         ///< the candidates to screen (count_candidates)
  std::int64_t fitting = 0;
  double best_estimate_s = 0.0;   ///< 0 before one fits
  double elapsed_s = 0.0;         ///< wall-clock seconds since the screening began
  bool finished = false;
};

/// Where one device count's search reads its scenario from, and where it reports its progress.
struct SearchSource {
  std::filesystem::path scenario_file;          ///< the user's scenario, included by the generated one
  /// Where the generated scenario will be written: its problems are cited where the user can read them
  /// (study_scenario.hpp).
  std::filesystem::path generated;
  std::optional<std::filesystem::path> confine; ///< --confine
  /// Called every half second or so while candidates are screened, and once at the end; unset: silent.
  std::function<void(const SearchProgress&)> progress;
};

/// One device count's candidates, screened and estimated, in bounded memory: the rows kept (PlanTally's) and every
/// other row set aside in `spilled`.
struct DeviceSearch {
  int devices = 0;                        ///< the devices each candidate splits the model over
  std::int64_t batch = 0;                 ///< the global batch each keeps, in samples
  std::int64_t candidates = 0;            ///< screened, in enumeration order
  std::int64_t undivided = 0;             ///< data degrees that did not divide the batch
  std::int64_t fitting = 0;               ///< of the screened, those that fit
  std::vector<analysis::PlanRow> rows;    ///< the best that fit by estimate, then the front's others
  std::vector<analysis::PlanDiscard> discards;
  /// The rows not kept, in the order enumerated: the screened and the undivided (the latter with their degrees only).
  std::shared_ptr<analysis::RowSpill> spilled;

  /// The candidate `row` stands for.
  [[nodiscard]] PlanCandidate candidate_of(const analysis::PlanRow& row) const { return candidate_of_row(row); }
  /// The best row that fits and stands for itself (not another's twin); none when nothing fits.
  [[nodiscard]] const analysis::PlanRow* best() const;
};

/// Every candidate of `space` over `devices` devices for the scenario `base` (the one point of
/// `source.scenario_file`), keeping a global batch of `batch` samples, screened and estimated as they are
/// enumerated (none held beyond what `limits.keep` keeps).
DeviceSearch search_devices(const PlanSpace& space, const SearchLimits& limits, int devices, std::int64_t batch,
                            const scenario::Scenario& base, const models::ModelProfile& profile,
                            const scenario::ScenarioFormat& format, const SearchSource& source,
                            const checks::Registries& registries);

/// Throws the InputError of a search over which no candidate fits (`found.best()` is none), at
/// training.parallelism of `scenario_file`: the candidates counted by the reason each was discarded, and a hint naming
/// the flags that rule every candidate out (the choices of `space` that leave none, --max-memory of `limits` where it
/// discards those that pass every check, or else the choices fixed and `other_counts`, such as "plan other device
/// counts with --gpus").
[[noreturn]] void refuse_unfit(const DeviceSearch& found, const PlanSpace& space, const SearchLimits& limits,
                               const models::TransformerShape& shape, const std::filesystem::path& scenario_file,
                               const std::string& other_counts);

}  // namespace dtsim::planner
