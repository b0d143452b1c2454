#pragma once
// Random stragglers: a factor on each gradient step of a worker, drawn from the distributions of the
// straggler rules that name it.

#include "sim/core/rng.hpp"
#include "sim/core/slowdown_distribution.hpp"
#include "sim/scenario/scenario.hpp"

#include <optional>
#include <vector>

namespace dtsim::runtime {

class StepSlowdown {
 public:
  /// The rules of `rules` naming worker `rank` (or every worker), drawn from the stream
  /// "stragglers/worker/<rank>" of `seed`: a worker's factors do not depend on the others'. A cluster-wide
  /// rule draws from "stragglers/cluster/<rule index>" instead, the same sequence on every worker, so that
  /// all workers' n-th steps share one factor.
  StepSlowdown(const std::vector<scenario::RandomSlowdown>& rules, std::uint64_t seed, int rank);

  /// The next step's factor: the product of one draw of every rule (1 without rules).
  double next();
  [[nodiscard]] bool empty() const { return rules_.empty(); }

  /// A rule's mean factor, as its distribution gives it (lognormal exp(sigma^2 / 2), ...).
  static double mean_factor(const scenario::RandomSlowdown& rule);

 private:
  struct Rule {
    scenario::RandomSlowdown spec;
    /// Its distribution, looked up once: next() runs on every gradient step.
    const core::SlowdownDistribution* distribution = nullptr;
    std::size_t shared = 0;  ///< cluster-wide: 1 + its index in shared_; 0 for the worker's own stream
  };

  std::optional<core::RandomEngine> engine_;  // the worker's own stream, where a rule of its own draws
  std::vector<core::RandomEngine> shared_;  // cluster-wide rules' streams (indices, not pointers: movable)
  std::vector<Rule> rules_;
};

}  // namespace dtsim::runtime
