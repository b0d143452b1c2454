#include "sim/metrics/long_run.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>

namespace dtsim::metrics {
FailureSources::FailureSources(std::optional<FailureSchedule> workers, std::vector<Kind> kinds, std::uint64_t seed)
    : workers_(std::move(workers)) {
  for (Kind& kind : kinds) {
    core::RandomEngine engine = core::random_stream(seed, "projection/failures/" + kind.name);
    Process process{std::move(kind), engine, 0.0};
    process.next_s = core::exponential(process.engine, process.kind.job_mtbf_s);
    kinds_.push_back(std::move(process));
  }
}

std::optional<double> FailureSources::next_at() const {
  std::optional<double> out = workers_ ? workers_->next_at() : std::nullopt;
  for (const Process& process : kinds_) {
    if (!out || process.next_s < *out) out = process.next_s;
  }
  return out;
}

std::optional<CausedFailure> FailureSources::take_due(double now) {
  const std::optional<double> workers_at = workers_ ? workers_->next_at() : std::nullopt;
  Process* earliest = nullptr;
  for (Process& process : kinds_) {
    if (earliest == nullptr || process.next_s < earliest->next_s) earliest = &process;
  }
  if (workers_at && *workers_at <= now && (earliest == nullptr || *workers_at <= earliest->next_s)) {
    const Failure failure = *workers_->take_due(now);
    return CausedFailure{failure.at_s, 0, failure.repair_s.value_or(0.0)};
  }
  if (earliest == nullptr || earliest->next_s > now) return std::nullopt;
  const CausedFailure out{earliest->next_s, earliest->kind.cause, earliest->kind.repair_s};
  earliest->next_s += core::exponential(earliest->engine, earliest->kind.job_mtbf_s);
  return out;
}

namespace {

/// The walk's state between events: where the job is, the checkpoint it would roll back to, the one still being
/// written in the background, and its spare and missing nodes.
class Walk {
 public:
  Walk(const LongRunCosts& costs, FailureSources sources) : costs_(costs), sources_(std::move(sources)) {
    out_.failures_by_cause.assign(costs.causes, 0.0);
    out_.work_s = static_cast<double>(costs.iterations) * costs.iteration_s;
    free_spares_ = costs.spares;
  }

  LongRun run() {
    while (iteration_ < costs_.iterations) {
      if (out_.interruptions.size() >= costs_.interruption_limit ||
          out_.failures >= static_cast<double>(costs_.interruption_limit)) {
        out_.cut = true;
        break;
      }
      const std::int64_t next_checkpoint = costs_.checkpoint_every > 0
                                               ? std::min(costs_.iterations, (iteration_ / costs_.checkpoint_every + 1) * costs_.checkpoint_every)
                                               : costs_.iterations;
      const double step = step_s();
      if (const std::optional<std::int64_t> steps = steps_to_notice(step);
          steps && iteration_ + *steps <= next_checkpoint && iteration_ + *steps < costs_.iterations) {
        roll_back(*steps, step);
        continue;
      }
      const auto kept = static_cast<double>(next_checkpoint - iteration_);
      now_ += kept * step;
      out_.shrunk_s += kept * (step - costs_.iteration_s);
      iteration_ = next_checkpoint;
      if (iteration_ < costs_.iterations && costs_.checkpoint_every > 0) write_checkpoint();
    }
    out_.total_s = now_;
    // The time of the iterations done again: what is left of the run's time once the rest is booked.
    out_.lost_work_s = out_.total_s - out_.work_s - out_.recovery_s - out_.checkpoint_s - out_.shrunk_s;
    return std::move(out_);
  }

 private:
  /// A checkpoint: its iteration, and when the work after it began (the job's moment once it was taken).
  struct Checkpoint {
    std::int64_t iteration = 0;
    double from_s = 0.0;
    double durable_s = 0.0;  ///< when its writing ends: a failure before then cannot roll back to it
  };

  /// An iteration's time at the job's width: the same global batch over fewer replicas while shrunk.
  [[nodiscard]] double step_s() const {
    const int missing = std::min(costs_.replicas - 1, static_cast<int>(missing_until_.size()) * costs_.replicas_per_node);
    return costs_.iteration_s * costs_.replicas / (costs_.replicas - missing);
  }

  /// Steps from now to the end of the one that notices the next failure: at least one, as a failure during a
  /// checkpoint or a recovery is noticed at the end of the next step.
  [[nodiscard]] std::optional<std::int64_t> steps_to_notice(double step) const {
    const std::optional<double> at = sources_.next_at();
    if (!at) return std::nullopt;
    const double ahead = (*at - now_) / step;
    if (ahead > static_cast<double>(costs_.iterations)) return std::nullopt;
    auto steps = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(ahead)));
    // The step's end is the clock after it, as a simulated run adds it: a failure at that very moment is due.
    while (steps > 1 && now_ + static_cast<double>(steps - 1) * step >= *at) --steps;
    while (now_ + static_cast<double>(steps) * step < *at) ++steps;
    return steps;
  }

  void roll_back(std::int64_t steps, double step) {
    now_ += static_cast<double>(steps) * step;
    Interruption record;
    record.noticed_s = now_;
    record.iteration = iteration_ + steps;
    record.failures = 0;
    double wait = 0.0;
    while (const std::optional<CausedFailure> failure = sources_.take_due(now_)) {
      if (record.failures == 0) {
        record.at_s = failure->at_s;
        record.cause = failure->cause;
      }
      ++record.failures;
      out_.failures += 1.0;
      out_.failures_by_cause[failure->cause] += 1.0;
      wait = std::max(wait, replace(*failure, record));
    }
    // A checkpoint still being written when the failure struck is lost with it.
    if (pending_ && pending_->durable_s <= record.at_s) valid_ = *pending_;
    pending_.reset();
    record.lost_iterations = record.iteration - valid_.iteration;
    iteration_ = valid_.iteration;
    const double read = iteration_ > 0 ? costs_.load_s : 0.0;
    const double downtime = wait + costs_.restart_s + read;
    out_.load_s += read;
    out_.recovery_s += downtime;
    now_ += downtime;
    valid_.from_s = now_;
    record.resumed_s = now_;
    out_.interruptions.push_back(record);
  }

  /// What the job waits for before restarting without the failed part: nothing when it needs no repair, a spare
  /// takes its place or the job shrinks; otherwise its repair, or the first spare back from one.
  double replace(const CausedFailure& failure, Interruption& record) {
    if (!(failure.repair_s > 0.0)) return 0.0;
    const double repaired = now_ + failure.repair_s;
    while (!repairing_spares_.empty() && repairing_spares_.top() <= now_) {
      repairing_spares_.pop();
      ++free_spares_;
    }
    if (free_spares_ > 0) {
      --free_spares_;
      ++out_.spares_used;
      repairing_spares_.push(repaired);
      return 0.0;
    }
    if (costs_.shrink && static_cast<int>(missing_until_.size() + 1) * costs_.replicas_per_node < costs_.replicas) {
      missing_until_.push_back(repaired);
      record.shrunk = true;
      return 0.0;
    }
    if (!repairing_spares_.empty() && repairing_spares_.top() < repaired) {
      const double back = repairing_spares_.top();
      repairing_spares_.pop();
      repairing_spares_.push(repaired);
      ++out_.spares_used;
      return back - now_;
    }
    return failure.repair_s;
  }

  /// The job waits while the checkpoint is taken: all of its writing, or only its copy to host memory when the
  /// rest is written in the background (after the previous one's, which it waits for).
  void write_checkpoint() {
    const double started = now_;
    await_pending();
    now_ += costs_.checkpoint_s;
    out_.checkpoint_s += now_ - started;
    const Checkpoint taken{iteration_, now_, now_ + costs_.background_s};
    if (costs_.background_s > 0.0) {
      pending_ = taken;
    } else {
      valid_ = taken;
    }
    regrow();
  }

  /// Waits for the checkpoint being written in the background, which then is the one to roll back to.
  void await_pending() {
    if (!pending_) return;
    now_ = std::max(now_, pending_->durable_s);
    valid_ = *pending_;
    pending_.reset();
  }

  /// Repaired nodes rejoin a shrunk job from the checkpoint just taken, once it is written: a restart, with
  /// nothing lost.
  void regrow() {
    const auto before = missing_until_.size();
    std::erase_if(missing_until_, [&](double back) { return back <= now_; });
    if (missing_until_.size() == before) return;
    const double started = now_;
    await_pending();
    now_ += costs_.restart_s + costs_.load_s;
    out_.load_s += costs_.load_s;
    ++out_.regrowths;
    out_.recovery_s += now_ - started;
    valid_.from_s = now_;
  }

  const LongRunCosts& costs_;
  FailureSources sources_;
  LongRun out_;
  double now_ = 0.0;
  std::int64_t iteration_ = 0;
  Checkpoint valid_;                  ///< what a failure rolls back to: the beginning before any
  std::optional<Checkpoint> pending_; ///< taken, and still being written in the background
  int free_spares_ = 0;
  std::priority_queue<double, std::vector<double>, std::greater<>> repairing_spares_;  ///< when each is back
  std::vector<double> missing_until_;  ///< a shrunk job's missing nodes, each until its repair
};

}  // namespace

LongRun walk_long_run(const LongRunCosts& costs, FailureSources sources) { return Walk(costs, std::move(sources)).run(); }

}  // namespace dtsim::metrics
