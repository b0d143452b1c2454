#pragma once
// A whole run advanced event by event from its steady state: iterations of iteration_s each, checkpoints every
// checkpoint_every iterations, failures from their processes in the job's own clock, and the recoveries they
// cost. It keeps a simulated run's rules (runtime/job_recovery.hpp), so that it takes the same decisions as
// simulating every step would, in time proportional to the events rather than to the iterations:
// - a failure is noticed at the end of the step it strikes in, or of the first step after it when it struck
//   during a checkpoint's writing or a recovery; the run's last step notices none;
// - every failure noticed at one step is met by one rollback to the last checkpoint, whose work since is lost;
// - the job is back after detection, the repair it waits for, the restart and reading the checkpoint back
//   (nothing to read before the first checkpoint).
// Repairs are waited for unless a hot spare takes the failed node's place; without one, a job that may shrink
// goes on without the failed node's data-parallel replicas, slower, and grows back at the first checkpoint after
// the repair, restarting to do so. An asynchronous checkpoint holds the job only while it is copied to host
// memory; it is written in the background and becomes the one to roll back to when the writing ends (a failure
// before then rolls back to the previous one), and the next checkpoint waits for it.

#include "sim/metrics/failure_schedule.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::metrics {

/// One failure: when it struck, its cause (an index into the run's causes), and how long its repair takes.
struct CausedFailure {
  double at_s = 0.0;
  std::size_t cause = 0;
  double repair_s = 0.0;
};

/// Where a long run's failures come from: the workers' random processes and fixed events of a simulated run
/// (cause 0), and component kinds failing as Poisson processes at the job's rate of each.
class FailureSources {
 public:
  struct Kind {
    std::string name;
    std::size_t cause = 0;
    double job_mtbf_s = 0.0;
    double repair_s = 0.0;
  };
  /// `workers` from the scenario's `failures.random` and events (none without either); `kinds` each from the
  /// seed's stream "projection/failures/<name>".
  FailureSources(std::optional<FailureSchedule> workers, std::vector<Kind> kinds, std::uint64_t seed);

  [[nodiscard]] std::optional<double> next_at() const;
  /// The earliest failure at or before `now`, taken.
  std::optional<CausedFailure> take_due(double now);

 private:
  struct Process {
    Kind kind;
    core::RandomEngine engine;
    double next_s = 0.0;
  };
  std::optional<FailureSchedule> workers_;
  std::vector<Process> kinds_;
};

struct LongRunCosts {
  double iteration_s = 0.0;
  std::int64_t iterations = 0;
  std::int64_t checkpoint_every = 0;  ///< 0: none (a failure restarts the run)
  double checkpoint_s = 0.0;          ///< taking one, while the job waits: writing it, or copying it to host memory
  double background_s = 0.0;          ///< writing it from host memory while the job goes on; 0: written while it waits
  double load_s = 0.0;                ///< reading one back
  double restart_s = 0.0;             ///< from noticing a failure to reading the checkpoint: detection and restart
  std::size_t causes = 1;
  /// Hot spare nodes; with none left, a repair is waited for, or the job shrinks.
  int spares = 0;
  bool shrink = false;
  /// The data-parallel replicas, and how many of them one failed node takes away when the job shrinks.
  int replicas = 1;
  int replicas_per_node = 1;
  std::size_t interruption_limit = 1'000'000;  ///< rollbacks or failures met: the walk stops (cut) at either
};

/// One rollback, as the timeline shows it.
struct Interruption {
  double at_s = 0.0;          ///< when its first failure struck
  double noticed_s = 0.0;     ///< the end of the step that noticed it
  double resumed_s = 0.0;     ///< back at work
  std::int64_t iteration = 0; ///< the iteration reached, rolled back to the last checkpoint's
  std::int64_t lost_iterations = 0;
  std::size_t cause = 0;      ///< its first failure's
  int failures = 1;           ///< met by this rollback
  bool shrunk = false;        ///< went on without the failed node's replicas
};

struct LongRun {
  double total_s = 0.0;
  double work_s = 0.0;          ///< the iterations, once each, at full width
  double lost_work_s = 0.0;     ///< iterations done again after rollbacks
  double recovery_s = 0.0;      ///< detection, repair waited for, restarts and checkpoint reads
  double load_s = 0.0;          ///< of recovery_s, the checkpoint reads
  double checkpoint_s = 0.0;
  double shrunk_s = 0.0;        ///< the time iterations took beyond their full-width time while shrunk
  double failures = 0.0;        ///< every failure met (several may share a rollback)
  std::vector<double> failures_by_cause;
  std::int64_t spares_used = 0;
  std::int64_t regrowths = 0;
  std::vector<Interruption> interruptions;
  bool cut = false;             ///< stopped at the interruption limit: the totals are not a whole run's
};

/// The run from its first iteration to its last, with `sources`' failures.
LongRun walk_long_run(const LongRunCosts& costs, FailureSources sources);

}  // namespace dtsim::metrics
