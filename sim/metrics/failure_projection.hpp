#pragma once
// What failures add to a whole run projected from its steady state (training.stop.tokens or samples beside
// failures): the run's work is cut into segments of failures.checkpoint.every iterations, each followed by a
// checkpoint written while the job waits (none after the last; without checkpoints, the whole run is one
// segment). Failures strike the job at rate 1/M (M: the job's mean time between failures, every cause's
// together) whatever it does; each is noticed at the end of the step it strikes in (of the next step when it
// strikes a checkpoint's writing or a recovery) and costs R: detection, the repair when it is waited for, the
// restart and reading the checkpoint back. Until the first checkpoint is written a failure rolls back to the
// beginning, with nothing to read back: the failures of the first segment (and, asynchronous, those that strike the
// second before the first checkpoint's background writing ends) cost R without the read, as in a drawn run.
// - Expected (closed form): a segment of T seconds of work takes (M + C + tau/2)(e^(T/M) - 1) (Daly 2006, eq. 9,
//   with the half step a failure loses beyond its moment), where C = (R + q tau) / (1 - q) is a failure's cost
//   counting the failures that strike its recovery (q = 1 - e^(-R/M)), each losing the step after it. A
//   checkpoint's writing takes W, plus p (tau + C) for the failures that strike it (p = 1 - e^(-W/M)).
//   Asynchronous, W is the copy to host memory and the background writing B adds to what a failure loses: one
//   striking during it rolls back to the checkpoint before, a segment further (B on average while B <= T); a
//   checkpoint that comes before the previous one's writing ends waits for it (B - T).
// - Drawn: one run walked event by event from the seed (long_run.hpp), with the same rules.

#include "sim/metrics/long_run.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::metrics {

/// One cause of the job's interruptions, the job's mean time between its failures, and the repair each needs.
struct FailureCause {
  std::string name;
  double job_mtbf_s = 0.0;
  double repair_s = 0.0;
};

struct FailureCosts {
  double iteration_s = 0.0;
  std::int64_t iterations = 0;        ///< the whole run's
  std::int64_t checkpoint_every = 0;  ///< iterations between checkpoints; 0: none (a failure restarts the run)
  double job_mtbf_s = 0.0;            ///< mean time between failures of the job
  double checkpoint_s = 0.0;          ///< taking one checkpoint while the job waits: writing it, or copying it to host
  double background_s = 0.0;          ///< writing it in the background (asynchronous checkpoints); 0: synchronous
  double recovery_s = 0.0;            ///< per interruption, repairs aside: detection, restart, reading back
  double load_s = 0.0;                ///< the part of recovery_s that reads the checkpoint back (none before the first)
  /// The causes, whose rates (1 / their job_mtbf_s) sum to 1 / job_mtbf_s; one or none: every interruption is
  /// the same cause's.
  std::vector<FailureCause> causes;
  int spares = 0;                     ///< hot spare nodes: a repair is not waited for while one is free
  bool shrink = false;                ///< without a spare, go on without the failed node's replicas
  int replicas = 1;                   ///< data-parallel
  int replicas_per_node = 1;          ///< taken away by a node missing from a shrunk job
  /// Expected per interruption once a checkpoint is written: recovery_s, and the repair when it is waited for (no
  /// spares, no shrinking). A run that writes no checkpoint reads none back: recovery_s less load_s.
  [[nodiscard]] double interruption_s() const;
  /// The checkpoint read an interruption's recovery holds once a checkpoint is written: load_s, or 0 when the run
  /// writes none (checkpoint_every 0 or at least the whole run).
  [[nodiscard]] double read_s() const;
};

/// The job's mean time between failures, every cause's together; a lone cause's own, to the last bit.
double combined_mtbf_s(const std::vector<FailureCause>& causes);

/// The time a run spends, by kind; interruptions fractional where expected.
struct FailureTotals {
  double interruptions = 0.0;
  double work_s = 0.0;        ///< the iterations, once each
  double lost_work_s = 0.0;   ///< work and checkpoint writing undone by failures
  double recovery_s = 0.0;
  double checkpoint_s = 0.0;  ///< checkpoints written (the last segment writes none)
  double load_s = 0.0;        ///< of recovery_s, reading checkpoints back
  double shrunk_s = 0.0;      ///< drawn: iterations' time beyond their full width's while the job shrank
  double total_s = 0.0;       ///< the sum: infinite when a segment cannot be expected to finish
  std::vector<double> interruptions_by_cause;  ///< as FailureCosts::causes
  std::int64_t spares_used = 0;  ///< drawn
  std::int64_t regrowths = 0;    ///< drawn: restarts to take repaired nodes back
  [[nodiscard]] double goodput() const { return total_s > 0.0 ? work_s / total_s : 0.0; }
};

/// The renewal process's expectation (closed form).
FailureTotals expected_failures(const FailureCosts& costs);

/// Interruptions beyond which a run is not drawn (its expectation still is).
inline constexpr double kDrawnInterruptionLimit = 1e6;
/// Interruptions over all of failures.draws beyond which no more runs are drawn (some seconds of walking):
/// the spread reports how many were.
inline constexpr double kDrawsInterruptionLimit = 1e8;
/// Checkpoints beyond which a run is not drawn (its expectation still is): the walk takes a step at each (some
/// 25 ns), and a budget of 10^18 tokens checkpointed every few hundred iterations writes some 10^10 of them.
inline constexpr double kDrawnCheckpointLimit = 1e8;
/// Checkpoints over all of failures.draws beyond which no more runs are drawn, as kDrawsInterruptionLimit.
inline constexpr double kDrawsCheckpointLimit = 1e8;

/// The checkpoints a run of `costs` writes: one after each segment but the last; none without checkpoints.
std::int64_t checkpoints_written(const FailureCosts& costs);

/// One run walked from `seed`, cause 0's failures from `workers` when given (a simulated run's failure
/// processes); none when the expectation exceeds kDrawnInterruptionLimit interruptions, or the run walked does,
/// or the run writes more than kDrawnCheckpointLimit checkpoints.
std::optional<LongRun> drawn_run(const FailureCosts& costs, std::uint64_t seed,
                                 std::optional<FailureSchedule> workers = std::nullopt);
/// A walked run's totals, by kind.
FailureTotals totals_of(const LongRun& run, const FailureCosts& costs);
/// drawn_run's totals.
std::optional<FailureTotals> drawn_failures(const FailureCosts& costs, std::uint64_t seed);

/// A quantity over many drawn runs: its mean and its 5th, 50th and 95th percentiles (nearest rank).
struct Spread {
  double mean = 0.0;
  double p5 = 0.0;
  double p50 = 0.0;
  double p95 = 0.0;
};
Spread spread_of(std::vector<double> values);

/// Many runs drawn from one steady state, each from its own seed.
struct DrawSpread {
  int draws = 0;
  Spread goodput;
  Spread total_s;
  Spread interruptions;
};
DrawSpread spread_of(const std::vector<FailureTotals>& runs);

/// Young's checkpoint interval, sqrt(2 x checkpoint_s x M): the work between checkpoints that loses least to
/// failures and checkpoints together, to first order (Young 1974; Daly 2006).
double young_daly_interval_s(const FailureCosts& costs);

/// The checkpoint interval, in iterations, whose expected run is the shortest, and that run's expected time.
struct BestInterval {
  std::int64_t every = 0;
  double total_s = 0.0;
};
/// Searched over every interval from one iteration to the whole run; none without a checkpoint's cost.
std::optional<BestInterval> best_checkpoint_interval(const FailureCosts& costs);

}  // namespace dtsim::metrics
