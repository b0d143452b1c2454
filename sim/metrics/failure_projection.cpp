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
  return out;
}

std::optional<FailureTotals> drawn_failures(const FailureCosts& costs, std::uint64_t seed) {
  if (!(expected_failures(costs).interruptions <= kDrawnInterruptionLimit)) return std::nullopt;
  core::RandomEngine engine = core::random_stream(seed, "projection/failures");
  const auto draw = [&] { return -costs.job_mtbf_s * std::log1p(-core::uniform01(engine)); };
  const Segments segments = segments_of(costs);
  FailureTotals out;
  out.work_s = static_cast<double>(costs.iterations) * costs.iteration_s;
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
      next = draw();
    }
    next -= length;
    if (!last) out.checkpoint_s += costs.checkpoint_s;
  }
  out.total_s = out.work_s + out.lost_work_s + out.recovery_s + out.checkpoint_s;
  return out;
}

double young_daly_interval_s(const FailureCosts& costs) { return std::sqrt(2.0 * costs.checkpoint_s * costs.job_mtbf_s); }

}  // namespace dtsim::metrics
