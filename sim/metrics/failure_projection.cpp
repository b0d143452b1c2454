#include "sim/metrics/failure_projection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace dtsim::metrics {
namespace {

/// The run's segments: iterations of each, the last one holding the rest.
struct Segments {
  std::int64_t full = 0;       ///< segments of checkpoint_every iterations, each followed by a checkpoint
  std::int64_t last = 0;       ///< iterations of the final segment, which writes none
};

Segments segments_of(const FailureCosts& costs) {
  const std::int64_t every = costs.checkpoint_every > 0 ? costs.checkpoint_every : costs.iterations;
  Segments out;
  out.full = (costs.iterations - 1) / every;
  out.last = costs.iterations - out.full * every;
  return out;
}

double total_rate(const std::vector<FailureCause>& causes) {
  double rate = 0.0;
  for (const FailureCause& cause : causes) rate += 1.0 / cause.job_mtbf_s;
  return rate;
}

/// The closed form's parts (see the header): a failure's cost from its notice, counting the failures that strike
/// its recovery, and how many failures it stands for. Each cause has its own recovery R_c (its repair when waited
/// for) and chance q_c of a failure during it; a chain of failures draws each one's cause by its rate, so
/// C = (sum w_c R_c + tau sum w_c q_c) / (1 - sum w_c q_c) with w_c the causes' shares, and a shrunk job's slower
/// iterations add to it.
struct FailureCost {
  double cost_s = 0.0;      ///< C
  double failures = 1.0;    ///< 1 / (1 - sum w_c q_c)
  double recovery_s = 0.0;  ///< sum w_c R_c: a failure's own recovery, on average
  double regrowths = 0.0;   ///< restarts that grow a shrunk job back, per failure (each a recovery without repair)
  double shrunk_s = 0.0;    ///< a failure's cost in slower iterations while shrunk, on average
};

/// A cause's share of the failures, its recovery, and what shrinking for it costs.
struct CauseCost {
  double share = 1.0;
  double recovery_s = 0.0;
  bool regrows = false;
  double shrunk_s = 0.0;
};

/// With `reads` false, the recoveries of failures that roll back to the beginning: nothing to read back.
std::vector<CauseCost> cause_costs(const FailureCosts& costs, bool reads) {
  const double recovery_s = reads ? costs.recovery_s : costs.recovery_s - costs.load_s;
  if (costs.causes.empty()) return {{1.0, recovery_s, false, 0.0}};
  const double rate = total_rate(costs.causes);
  const bool waits = costs.spares == 0 && !costs.shrink;
  // Shrunk from the failure until the first checkpoint after the repair (half an interval later on average),
  // iterations take d / (d - k) as long; growing back is a restart and a read.
  const double every = static_cast<double>(costs.checkpoint_every) * costs.iteration_s;
  const double slower = static_cast<double>(costs.replicas_per_node) / std::max(1, costs.replicas - costs.replicas_per_node);
  std::vector<CauseCost> out;
  for (const FailureCause& cause : costs.causes) {
    CauseCost c{1.0 / (cause.job_mtbf_s * rate), recovery_s + (waits ? cause.repair_s : 0.0), false, 0.0};
    if (costs.shrink && costs.spares == 0 && cause.repair_s > 0.0) {
      c.shrunk_s = (cause.repair_s + every / 2.0) * slower;
      c.regrows = true;
    }
    out.push_back(c);
  }
  return out;
}

FailureCost failure_cost(const FailureCosts& costs, bool reads) {
  FailureCost out;
  double struck = 0.0;  // sum w_c q_c
  for (const CauseCost& c : cause_costs(costs, reads)) {
    out.recovery_s += c.share * c.recovery_s;
    out.shrunk_s += c.share * c.shrunk_s;
    out.regrowths += c.regrows ? c.share : 0.0;
    struck += c.share * -std::expm1(-c.recovery_s / costs.job_mtbf_s);
  }
  // A job failing far more often than it recovers has each recovery struck (sum w_c q_c is 1 to the last bit, or
  // above it by rounding): it never resumes, and so a failure stands for infinitely many, never for a negative count.
  out.failures = struck < 1.0 ? 1.0 / (1.0 - struck) : std::numeric_limits<double>::infinity();
  // Growing back comes at a checkpoint, and reads it back whatever the failure that shrank the job read.
  out.cost_s = (out.recovery_s + out.regrowths * costs.recovery_s + out.shrunk_s + struck * costs.iteration_s) * out.failures + costs.background_s;
  return out;
}

/// A part of the run in Daly's renewal form: its expected seconds are base_s + struck x C, and its failures
/// struck x 1 / (1 - sum w_c q_c), for the cost C of the failures that strike it.
struct Part {
  double base_s = 0.0;  ///< its seconds but the failures' costs
  double struck = 0.0;  ///< the failures that strike it, those that strike their recoveries aside
};

/// `length` seconds of work, done again from its start after each failure.
Part work_part(double length, const FailureCosts& costs) {
  const double struck = std::expm1(length / costs.job_mtbf_s);
  return {(costs.job_mtbf_s + costs.iteration_s / 2.0) * struck, struck};
}

/// Writing a checkpoint: a failure during it is noticed after the next step.
Part write_part(const FailureCosts& costs) {
  const double struck = -std::expm1(-costs.checkpoint_s / costs.job_mtbf_s);
  const double every = static_cast<double>(costs.checkpoint_every) * costs.iteration_s;
  const double waits = std::max(0.0, costs.background_s - every);
  return {costs.checkpoint_s + waits + struck * costs.iteration_s, struck};
}

/// Of the failures of a part of `length` seconds done again until it succeeds, the share that strike in its first
/// `early` seconds: of the attempts a failure cuts short, (1 - e^(-early/M)) / (1 - e^(-length/M)).
double early_share(double early, double length, double mtbf_s) {
  if (!(early > 0.0)) return 0.0;
  if (early >= length) return 1.0;
  const double share = std::expm1(-early / mtbf_s) / std::expm1(-length / mtbf_s);
  // Both ratios underflow only for an mtbf beyond 1e300 s, where the failures are uniform over the part.
  return std::isfinite(share) ? share : early / length;
}

/// `count` x `each`: nothing where the count is none, even where each is infinite (a recovery that never ends).
double times(double count, double each) { return count > 0.0 ? count * each : 0.0; }

/// The failures before the first checkpoint (`unread`) and after it (`read`), in Part's terms. A failure rolls back
/// to the beginning, with nothing to read back, until the first checkpoint is written: in the first segment, and,
/// with asynchronous checkpoints, in the next one before the first checkpoint's writing in the background ends.
struct Struck {
  double base_s = 0.0;
  double unread = 0.0;
  double read = 0.0;
};

Struck struck_of(const FailureCosts& costs, const Segments& segments) {
  const double every_s = static_cast<double>(costs.checkpoint_every) * costs.iteration_s;
  const double last_s = static_cast<double>(segments.last) * costs.iteration_s;
  const Part last = work_part(last_s, costs);
  if (segments.full == 0) return {last.base_s, last.struck, 0.0};
  const Part work = work_part(every_s, costs);
  const Part write = write_part(costs);
  const auto full = static_cast<double>(segments.full);
  Struck out{full * (work.base_s + write.base_s) + last.base_s, work.struck,
             full * write.struck + (full - 1.0) * work.struck + last.struck};
  const bool second_is_last = segments.full == 1;
  const double share = early_share(costs.background_s, second_is_last ? last_s : every_s, costs.job_mtbf_s);
  const double early = times(share, second_is_last ? last.struck : work.struck);
  out.unread += early;
  // A part without end is infinite either way: moving its failures would leave NaN.
  if (std::isfinite(out.read)) out.read = std::max(0.0, out.read - early);
  return out;
}

}  // namespace

double FailureCosts::read_s() const { return checkpoints_written(*this) > 0 ? load_s : 0.0; }

double FailureCosts::interruption_s() const { return failure_cost(*this, read_s() > 0.0).recovery_s; }

FailureTotals expected_failures(const FailureCosts& costs) {
  const Segments segments = segments_of(costs);
  const FailureCost unread = failure_cost(costs, false);
  const FailureCost read = failure_cost(costs, true);
  // No recovery ends (of those the run has: a run that writes no checkpoint has none that reads one): the closed
  // form's parts would multiply infinity by the zero length of a run without checkpoints, and sum infinities of both
  // signs.
  if (std::isinf(unread.failures) || (segments.full > 0 && std::isinf(read.failures))) {
    constexpr double kNever = std::numeric_limits<double>::infinity();
    FailureTotals never;
    never.work_s = static_cast<double>(costs.iterations) * costs.iteration_s;
    never.interruptions = never.lost_work_s = never.recovery_s = never.total_s = kNever;
    never.interruptions_by_cause.assign(costs.causes.size(), kNever);
    return never;
  }
  const Struck struck = struck_of(costs, segments);
  const double unread_failures = times(struck.unread, unread.failures);
  const double read_failures = times(struck.read, read.failures);
  const double every = static_cast<double>(costs.checkpoint_every) * costs.iteration_s;
  FailureTotals out;
  out.work_s = static_cast<double>(costs.iterations) * costs.iteration_s;
  out.checkpoint_s = static_cast<double>(segments.full) * (costs.checkpoint_s + std::max(0.0, costs.background_s - every));
  out.interruptions = unread_failures + read_failures;
  out.recovery_s = times(unread_failures, unread.recovery_s) + times(read_failures, read.recovery_s) +
                   times(out.interruptions, read.regrowths * costs.recovery_s);
  // An interruption after the first checkpoint reads it back, and so does growing back, which comes at one.
  out.load_s = times(costs.load_s, read_failures + times(out.interruptions, read.regrowths));
  out.shrunk_s = out.interruptions * read.shrunk_s;
  out.total_s = struck.base_s + times(struck.unread, unread.cost_s) + times(struck.read, read.cost_s);
  out.lost_work_s = out.total_s - out.work_s - out.checkpoint_s - out.recovery_s - out.shrunk_s;
  if (!std::isfinite(out.total_s)) out.total_s = std::numeric_limits<double>::infinity();
  const double rate = total_rate(costs.causes);
  for (const FailureCause& cause : costs.causes) {
    out.interruptions_by_cause.push_back(out.interruptions / (cause.job_mtbf_s * rate));
  }
  return out;
}

std::int64_t checkpoints_written(const FailureCosts& costs) {
  return costs.checkpoint_every > 0 && costs.iterations > 0 ? segments_of(costs).full : 0;
}

std::optional<LongRun> drawn_run(const FailureCosts& costs, std::uint64_t seed, std::optional<FailureSchedule> workers) {
  if (!(expected_failures(costs).interruptions <= kDrawnInterruptionLimit)) return std::nullopt;
  if (static_cast<double>(checkpoints_written(costs)) > kDrawnCheckpointLimit) return std::nullopt;
  std::vector<FailureSources::Kind> kinds;
  if (costs.causes.empty()) kinds.push_back({"job", 0, costs.job_mtbf_s, 0.0});
  for (std::size_t c = workers ? 1 : 0; c < costs.causes.size(); ++c) {
    kinds.push_back({costs.causes[c].name, c, costs.causes[c].job_mtbf_s, costs.causes[c].repair_s});
  }
  LongRunCosts run;
  run.iteration_s = costs.iteration_s;
  run.iterations = costs.iterations;
  run.checkpoint_every = costs.checkpoint_every;
  run.checkpoint_s = costs.checkpoint_s;
  run.background_s = costs.background_s;
  run.load_s = costs.load_s;
  run.restart_s = costs.recovery_s - costs.load_s;
  run.causes = std::max<std::size_t>(1, costs.causes.size());
  run.spares = costs.spares;
  run.shrink = costs.shrink;
  run.replicas = costs.replicas;
  run.replicas_per_node = costs.replicas_per_node;
  run.interruption_limit = static_cast<std::size_t>(kDrawnInterruptionLimit);
  LongRun walked = walk_long_run(run, FailureSources(std::move(workers), std::move(kinds), seed));
  // A run cut short is not a whole run: none is reported rather than part of one.
  if (walked.cut) return std::nullopt;
  return walked;
}

FailureTotals totals_of(const LongRun& run, const FailureCosts& costs) {
  FailureTotals out;
  out.interruptions = run.failures;
  out.work_s = run.work_s;
  out.lost_work_s = run.lost_work_s;
  out.recovery_s = run.recovery_s;
  out.load_s = run.load_s;
  out.checkpoint_s = run.checkpoint_s;
  out.shrunk_s = run.shrunk_s;
  out.total_s = run.total_s;
  if (!costs.causes.empty()) out.interruptions_by_cause = run.failures_by_cause;
  out.spares_used = run.spares_used;
  out.regrowths = run.regrowths;
  return out;
}

std::optional<FailureTotals> drawn_failures(const FailureCosts& costs, std::uint64_t seed) {
  const std::optional<LongRun> run = drawn_run(costs, seed);
  if (!run) return std::nullopt;
  return totals_of(*run, costs);
}

Spread spread_of(std::vector<double> values) {
  Spread out;
  if (values.empty()) return out;
  std::sort(values.begin(), values.end());
  double sum = 0.0;
  for (const double value : values) sum += value;
  out.mean = sum / static_cast<double>(values.size());
  // Nearest rank: the smallest value with at least the fraction of the values at or below it.
  const auto rank = [&](double fraction) {
    const auto at = static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(values.size())));
    return values[std::clamp<std::size_t>(at, 1, values.size()) - 1];
  };
  out.p5 = rank(0.05);
  out.p50 = rank(0.5);
  out.p95 = rank(0.95);
  return out;
}

DrawSpread spread_of(const std::vector<FailureTotals>& runs) {
  std::vector<double> goodput;
  std::vector<double> total;
  std::vector<double> interruptions;
  for (const FailureTotals& run : runs) {
    goodput.push_back(run.goodput());
    total.push_back(run.total_s);
    interruptions.push_back(run.interruptions);
  }
  return {static_cast<int>(runs.size()), spread_of(goodput), spread_of(total), spread_of(interruptions)};
}

double combined_mtbf_s(const std::vector<FailureCause>& causes) {
  return causes.size() == 1 ? causes.front().job_mtbf_s : 1.0 / total_rate(causes);
}

double young_daly_interval_s(const FailureCosts& costs) { return std::sqrt(2.0 * costs.checkpoint_s * costs.job_mtbf_s); }

std::optional<BestInterval> best_checkpoint_interval(const FailureCosts& costs) {
  if (!(costs.checkpoint_s > 0.0) || costs.iterations < 1) return std::nullopt;
  const auto total = [&](std::int64_t every) {
    FailureCosts at = costs;
    at.checkpoint_every = every;
    return expected_failures(at).total_s;
  };
  // Over a geometric grid, then between the best point's neighbours on it: near its minimum the expected time
  // is convex in the interval (the work a failure loses grows with it, the checkpoints written shrink).
  std::vector<std::int64_t> grid;
  for (double point = 1.0; point < static_cast<double>(costs.iterations); point *= 1.05) {
    const auto every = static_cast<std::int64_t>(std::llround(point));
    if (grid.empty() || every > grid.back()) grid.push_back(every);
  }
  // A run of one iteration has no grid below it: its one interval is the whole run.
  if (grid.empty() || grid.back() != costs.iterations) grid.push_back(costs.iterations);
  std::size_t at = 0;
  double best_s = total(grid[0]);
  for (std::size_t g = 1; g < grid.size(); ++g) {
    if (const double t = total(grid[g]); t < best_s) {
      best_s = t;
      at = g;
    }
  }
  std::int64_t lo = grid[at > 0 ? at - 1 : 0];
  std::int64_t hi = grid[std::min(at + 1, grid.size() - 1)];
  while (hi - lo > 2) {
    const std::int64_t a = lo + (hi - lo) / 3;
    const std::int64_t b = hi - (hi - lo) / 3;
    if (total(a) <= total(b)) {
      hi = b;
    } else {
      lo = a;
    }
  }
  BestInterval best{grid[at], best_s};
  for (std::int64_t every = lo; every <= hi; ++every) {
    if (const double t = total(every); t < best.total_s) best = {every, t};
  }
  // No interval lets a run finish whose recoveries never end: none is advised.
  if (!std::isfinite(best.total_s)) return std::nullopt;
  return best;
}

}  // namespace dtsim::metrics
