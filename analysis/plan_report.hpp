#pragma once
// What `dtsim plan` found, as files and tables: every candidate split with its verdict (plan_candidates.csv),
// the simulated best with their measured figures (plan.csv), the discarded counted by reason, a table for the
// terminal and report.html (throughput against memory, the front of best plans, the reasons).

#include "sim/scenario/parallel_axes.hpp"

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace dtsim::analysis {

/// Fitting candidates drawn per device count in report.html (and so the best a search keeps at the least, with the
/// front of those none beats with less memory): beyond this the page grows by megabytes while the chart shows no
/// more (plan_candidates.csv holds them all).
inline constexpr std::size_t kDrawnCandidates = 2000;

/// What the simulation of one candidate measured (its summary.json).
struct PlanMeasurement {
  double iteration_s = 0.0;
  double tokens_per_s = 0.0;  ///< samples/s for models without tokens
  std::optional<double> model_flops_utilization;
  double peak_memory_bytes = 0.0;
  std::optional<double> energy_per_token_j;
  std::optional<double> cost_per_million_tokens;  ///< from energy.price_per_device_hour
  std::string run_folder;                          ///< relative to the plan's folder
};

struct PlanRow {
  int devices = 0;
  std::string split;  ///< "t8 p4 d32 m64 z1 selective 1f1b"
  /// Each axis's degree, by scenario::axis_index (plan.csv's columns in scenario::listing_order).
  scenario::AxisDegrees degrees = scenario::unsplit();
  int microbatches = 1, zero = 0, virtual_stages = 1;
  std::string recomputation;
  std::string schedule;
  std::string placement = "t-p-d";  ///< the tensor, pipeline and data axes' order over the ranks, innermost first
  double memory_bytes = 0.0;      ///< the memory model's largest device (every candidate that passed the checks)
  double estimate_s = 0.0;        ///< the closed-form iteration; 0 for a discarded candidate
  double estimate_tokens_per_s = 0.0;
  std::string discarded;  ///< the reason (a scenario key, or max_memory); "" when it fits
  std::string detail;     ///< the check's message
  /// Discarded before its other choices were enumerated (its data degree does not divide the batch): the degrees of
  /// the axes dividing the devices (tensor, pipeline, context, data) only, the cells of those carved out of the data
  /// degree (expert) and of the other choices left empty in plan_candidates.csv.
  bool degrees_only = false;
  /// A fitting candidate estimated exactly as fast as an earlier one of the same placement that holds no more
  /// memory (they differ in their ZeRO stage or recomputation only where neither changes the estimate): that
  /// one's split. Not simulated.
  std::string same_as;
  std::optional<PlanMeasurement> simulated;
};

/// plan_candidates.csv's lines of the candidates a search does not keep, set aside as it screens them in an
/// anonymous temporary file (gone with the process: nothing appears in the plan's folder before it is written),
/// so that a search of millions holds the best it keeps and no more.
class RowSpill {
 public:
  /// Throws std::runtime_error where no temporary file can be made.
  RowSpill();
  void add(const PlanRow& row);
  [[nodiscard]] std::int64_t rows() const { return rows_; }
  /// Appends every line set aside, in the order they came, to `out`.
  void copy_to(std::ostream& out) const;

 private:
  std::shared_ptr<std::FILE> file_;
  std::int64_t rows_ = 0;
};

struct PlanDiscard {
  std::string reason;
  std::int64_t count = 0;
  std::string example;  ///< one candidate's split and message
};

/// One device count's search.
struct PlanStudy {
  int devices = 0;
  std::int64_t candidates = 0;  ///< enumerated, with the splits whose data degree does not divide the batch
  /// The candidates kept, the fitting first by estimate, then the discarded; with `spilled`, the best that fit and
  /// the front of those none beats with less memory only.
  std::vector<PlanRow> rows;
  std::vector<PlanDiscard> discards;
  std::string objective;        ///< tokens_per_s, cost or energy
  std::string tokens_unit;      ///< "tokens" or "samples"
  std::int64_t fitting = 0;     ///< the candidates that fit, kept or not
  std::shared_ptr<const RowSpill> spilled;  ///< the other candidates' rows; none: `rows` holds them all
};

/// Counts `rows`' discards by reason, most frequent first (ties by name), with the first example of each.
std::vector<PlanDiscard> count_discards(const std::vector<PlanRow>& rows, std::int64_t undivided, std::int64_t batch);
/// The discards already counted by reason (a streamed search's), with the splits whose data degree does not divide
/// the batch, most frequent first (ties by name).
std::vector<PlanDiscard> count_discards(std::map<std::string, PlanDiscard> by_reason, std::int64_t undivided,
                                        std::int64_t batch);

/// The simulated rows of `studies` ordered by the objective, best first.
std::vector<const PlanRow*> ranked_plans(const std::vector<PlanStudy>& studies, const std::string& objective);

/// plan.csv: the simulated candidates of every study, best first by the objective.
std::string plan_csv(const std::vector<PlanStudy>& studies);
/// plan_candidates.csv: every candidate, its estimate, memory and verdict; a study's kept rows first, then those
/// it set aside, in the order it screened them.
std::string candidates_csv(const std::vector<PlanStudy>& studies);
/// candidates_csv written to `out` as it goes, for plans of more candidates than memory holds as text.
void write_candidates_csv(const std::vector<PlanStudy>& studies, std::ostream& out);
/// The terminal's summary: per device count the candidates, the discards by reason and the simulated plans.
std::string plan_table(const std::vector<PlanStudy>& studies);
/// report.html of the plan of scenario `name`.
std::string plan_report_html(const std::string& name, const std::vector<PlanStudy>& studies);

}  // namespace dtsim::analysis
