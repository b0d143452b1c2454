#include "sim/metrics/failure_projection.hpp"

#include "sim/core/rng.hpp"

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

/// Expected seconds and interruptions of a segment needing `length` seconds without a failure.
std::pair<double, double> expected_segment(double length, const FailureCosts& costs) {
  const double failures = std::expm1(length / costs.job_mtbf_s);
  return {(costs.job_mtbf_s + costs.recovery_s) * failures, failures};
}

double total_rate(const std::vector<FailureCause>& causes) {
  double rate = 0.0;
  for (const FailureCause& cause : causes) rate += 1.0 / cause.job_mtbf_s;
  return rate;
}

/// The cause of a failure: each in proportion to its rate. One cause draws nothing, so that a run with one draws
/// the same failures as before causes were told apart.
std::size_t draw_cause(const FailureCosts& costs, core::RandomEngine& engine) {
  if (costs.causes.size() < 2) return 0;
  double left = core::uniform01(engine) * total_rate(costs.causes);
  for (std::size_t c = 0; c + 1 < costs.causes.size(); ++c) {
    left -= 1.0 / costs.causes[c].job_mtbf_s;
    if (left < 0.0) return c;
  }
  return costs.causes.size() - 1;
}

}  // namespace

FailureTotals expected_failures(const FailureCosts& costs) {
  const Segments segments = segments_of(costs);
  const double every = static_cast<double>(costs.checkpoint_every) * costs.iteration_s;
  const auto [full_s, full_failures] = expected_segment(every + costs.checkpoint_s, costs);
  const auto [last_s, last_failures] = expected_segment(static_cast<double>(segments.last) * costs.iteration_s, costs);
  FailureTotals out;
  const auto full = static_cast<double>(segments.full);
  out.work_s = static_cast<double>(costs.iterations) * costs.iteration_s;
  out.checkpoint_s = full * costs.checkpoint_s;
  out.interruptions = full * full_failures + last_failures;
  out.recovery_s = out.interruptions * costs.recovery_s;
  out.total_s = full * full_s + last_s;
  out.lost_work_s = out.total_s - out.work_s - out.checkpoint_s - out.recovery_s;
  if (!std::isfinite(out.total_s)) out.total_s = std::numeric_limits<double>::infinity();
  const double rate = total_rate(costs.causes);
  for (const FailureCause& cause : costs.causes) {
    out.interruptions_by_cause.push_back(out.interruptions / (cause.job_mtbf_s * rate));
  }
  return out;
}

std::optional<FailureTotals> drawn_failures(const FailureCosts& costs, std::uint64_t seed) {
  if (!(expected_failures(costs).interruptions <= kDrawnInterruptionLimit)) return std::nullopt;
  core::RandomEngine engine = core::random_stream(seed, "projection/failures");
  const auto draw = [&] { return -costs.job_mtbf_s * std::log1p(-core::uniform01(engine)); };
  const Segments segments = segments_of(costs);
  FailureTotals out;
  out.work_s = static_cast<double>(costs.iterations) * costs.iteration_s;
  out.interruptions_by_cause.assign(costs.causes.size(), 0.0);
  double next = draw();  // exposed time (working or writing) until the next failure
  for (std::int64_t s = 0; s <= segments.full; ++s) {
    const bool last = s == segments.full;
    const std::int64_t steps = last ? segments.last : costs.checkpoint_every;
    const double work = static_cast<double>(steps) * costs.iteration_s;
    const double length = work + (last ? 0.0 : costs.checkpoint_s);
    while (next < length) {
      // Noticed at the end of its step; during the checkpoint's writing, at its end.
      const double noticed = next < work ? std::min(work, std::ceil(next / costs.iteration_s) * costs.iteration_s) : length;
      out.lost_work_s += noticed;
      out.recovery_s += costs.recovery_s;
      out.interruptions += 1.0;
      if (!costs.causes.empty()) out.interruptions_by_cause[draw_cause(costs, engine)] += 1.0;
      next = draw();
    }
    next -= length;
    if (!last) out.checkpoint_s += costs.checkpoint_s;
  }
  out.total_s = out.work_s + out.lost_work_s + out.recovery_s + out.checkpoint_s;
  return out;
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
  if (grid.back() != costs.iterations) grid.push_back(costs.iterations);
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
  return best;
}

}  // namespace dtsim::metrics
