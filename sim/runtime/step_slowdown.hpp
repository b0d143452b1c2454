#pragma once
// Random stragglers: a factor on each gradient step of a worker, drawn from the distributions of the
// straggler rules that name it.

#include "sim/core/rng.hpp"
#include "sim/scenario/scenario.hpp"

#include <vector>

namespace dtsim::runtime {

class StepSlowdown {
 public:
  /// The rules of `rules` naming worker `rank` (or every worker), drawn from the stream
  /// "stragglers/worker/<rank>" of `seed`: a worker's factors do not depend on the others'.
  StepSlowdown(const std::vector<scenario::RandomSlowdown>& rules, std::uint64_t seed, int rank);

  /// The next step's factor: the product of one draw of every rule (1 without rules).
  double next();
  [[nodiscard]] bool empty() const { return rules_.empty(); }

  /// A rule's mean factor: exp(sigma^2 / 2), 1 + mean, or 1 + probability (factor - 1).
  static double mean_factor(const scenario::RandomSlowdown& rule);

 private:
  std::vector<scenario::RandomSlowdown> rules_;
  core::RandomEngine engine_;
};

}  // namespace dtsim::runtime
