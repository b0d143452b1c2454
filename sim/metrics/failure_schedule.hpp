#pragma once
// When workers fail: the scenario's fixed events and, with `failures.random`, each worker's seeded failure
// process (exponential times between a repair and the next failure). Every actor that must agree on the
// failures holds its own schedule, built from the same seed: asked at the same simulated moment, they give
// the same answers.

#include "sim/core/rng.hpp"
#include "sim/scenario/scenario.hpp"

#include <optional>
#include <vector>

namespace dtsim::metrics {

struct Failure {
  int worker = 0;
  double at_s = 0.0;
  std::optional<double> repair_s;
};

/// The most failures one schedule hands out. Failures more frequent than a job can recover from (an mtbf of
/// nanoseconds) would otherwise roll the job back for ever; past the limit the run goes on without failures,
/// and the command reports the limit as an error instead of writing results.
inline constexpr std::size_t kFailureLimit = 10'000;

class FailureSchedule {
 public:
  /// The failures of `only` (every worker when unset), at most `limit` of them.
  FailureSchedule(const scenario::FailureSpec& spec, int workers, std::uint64_t seed, std::optional<int> only = std::nullopt,
                  std::size_t limit = kFailureLimit);

  /// The earliest failure not yet taken, when it happened at or before `now`; taking it moves that worker's
  /// random process on (its next failure comes an exponential time after its repair).
  std::optional<Failure> take_due(double now);
  [[nodiscard]] bool empty() const { return fixed_.empty() && random_.empty(); }
  /// When the earliest failure not yet taken happens; none when the schedule has no more to hand out.
  [[nodiscard]] std::optional<double> next_at() const;

  struct RandomWorker {
    int worker = 0;
    core::RandomEngine engine;
    double next_s = 0.0;
  };

 private:
  double draw(core::RandomEngine& engine) const;

  std::vector<Failure> fixed_;  ///< not yet taken, by time
  std::vector<RandomWorker> random_;  ///< a heap: the earliest next failure first
  double mtbf_s_ = 0.0;
  std::size_t taken_ = 0;
  std::size_t limit_ = kFailureLimit;
  std::optional<double> random_repair_s_;
};

}  // namespace dtsim::metrics
