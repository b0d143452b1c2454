#include "sim/runtime/step_slowdown.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace dtsim::runtime {

StepSlowdown::StepSlowdown(const std::vector<scenario::RandomSlowdown>& rules, std::uint64_t seed, int rank)
    : engine_(core::random_stream(seed, "stragglers/worker/" + std::to_string(rank))) {
  for (const scenario::RandomSlowdown& rule : rules) {
    if (rule.workers.empty() || std::find(rule.workers.begin(), rule.workers.end(), rank) != rule.workers.end()) {
      rules_.push_back(rule);
    }
  }
}

double StepSlowdown::next() {
  double factor = 1.0;
  for (const scenario::RandomSlowdown& rule : rules_) {
    if (rule.distribution == "lognormal") {
      factor *= std::exp(rule.sigma * core::standard_normal(engine_));
    } else if (rule.distribution == "exponential") {
      factor *= 1.0 - rule.mean * std::log1p(-core::uniform01(engine_));
    } else if (rule.distribution == "bernoulli") {
      factor *= core::uniform01(engine_) < rule.probability ? rule.factor : 1.0;
    } else {
      throw std::invalid_argument("unknown slowdown distribution '" + rule.distribution + "'");
    }
  }
  return factor;
}

double StepSlowdown::mean_factor(const scenario::RandomSlowdown& rule) {
  if (rule.distribution == "lognormal") return std::exp(rule.sigma * rule.sigma / 2.0);
  if (rule.distribution == "exponential") return 1.0 + rule.mean;
  if (rule.distribution == "bernoulli") return 1.0 + rule.probability * (rule.factor - 1.0);
  throw std::invalid_argument("unknown slowdown distribution '" + rule.distribution + "'");
}

}  // namespace dtsim::runtime
