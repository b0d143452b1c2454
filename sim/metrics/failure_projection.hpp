#pragma once
// What random failures add to a whole run projected from its steady state (training.stop.tokens or samples
// beside failures.random): the run is a renewal process. Its work is cut into segments of
// failures.checkpoint.every iterations, each followed by a checkpoint written while the job waits (none after
// the last; without checkpoints, the whole run is one segment). Failures strike the job at rate 1/M (M: a
// worker's mtbf over the workers that fail) while it works or writes, not while it recovers; a failure loses
// the segment's time so far and costs R (repair, restart, reading the checkpoint back) before the segment
// starts again. Expected, a segment of T seconds takes (M + R)(e^(T/M) - 1) (Daly 2006, eq. 9 without the
// failures during recovery); drawn, the failures come from the seed's stream "projection/failures" and are
// noticed at the end of the step they strike in, as a simulated run notices them. Several causes (component
// kinds, failure_catalog.hpp) strike at the sum of their rates; each interruption is one cause's, in proportion
// to its rate, and costs the same recovery.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::metrics {

/// One cause of the job's interruptions, and the job's mean time between its failures.
struct FailureCause {
  std::string name;
  double job_mtbf_s = 0.0;
};

struct FailureCosts {
  double iteration_s = 0.0;
  std::int64_t iterations = 0;        ///< the whole run's
  std::int64_t checkpoint_every = 0;  ///< iterations between checkpoints; 0: none (a failure restarts the run)
  double job_mtbf_s = 0.0;            ///< mean time between failures of the job
  double checkpoint_s = 0.0;          ///< writing one checkpoint
  double recovery_s = 0.0;            ///< per interruption: repair, restart and reading the checkpoint back
  /// The causes, whose rates (1 / their job_mtbf_s) sum to 1 / job_mtbf_s; one or none: every interruption is
  /// the same cause's.
  std::vector<FailureCause> causes;
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
  double total_s = 0.0;       ///< the sum: infinite when a segment cannot be expected to finish
  std::vector<double> interruptions_by_cause;  ///< as FailureCosts::causes
  [[nodiscard]] double goodput() const { return total_s > 0.0 ? work_s / total_s : 0.0; }
};

/// The renewal process's expectation (closed form).
FailureTotals expected_failures(const FailureCosts& costs);

/// Interruptions beyond which a run is not drawn (its expectation still is).
inline constexpr double kDrawnInterruptionLimit = 1e6;

/// One run drawn from `seed`; none when the expectation exceeds kDrawnInterruptionLimit interruptions.
std::optional<FailureTotals> drawn_failures(const FailureCosts& costs, std::uint64_t seed);

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
