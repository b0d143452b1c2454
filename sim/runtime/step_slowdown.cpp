#include "sim/runtime/step_slowdown.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace dtsim::runtime {

StepSlowdown::StepSlowdown(const std::vector<scenario::RandomSlowdown>& rules, std::uint64_t seed, int rank)
    : engine_(core::random_stream(seed, "stragglers/worker/" + std::to_string(rank))) {
  for (std::size_t index = 0; index < rules.size(); ++index) {
    const scenario::RandomSlowdown& rule = rules[index];
    if (!rule.workers.empty() && std::find(rule.workers.begin(), rule.workers.end(), rank) == rule.workers.end()) continue;
    std::size_t shared = 0;
    if (rule.cluster_wide) {
      shared_.push_back(core::random_stream(seed, "stragglers/cluster/" + std::to_string(index)));
      shared = shared_.size();
    }
    rules_.push_back({rule, shared});
  }
}

double StepSlowdown::draw(const scenario::RandomSlowdown& rule, core::RandomEngine& engine) {
  if (rule.distribution == "lognormal") return std::exp(rule.sigma * core::standard_normal(engine));
  if (rule.distribution == "exponential") return 1.0 - rule.mean * std::log1p(-core::uniform01(engine));
  if (rule.distribution == "bernoulli") return core::uniform01(engine) < rule.probability ? rule.factor : 1.0;
  throw std::invalid_argument("unknown slowdown distribution '" + rule.distribution + "'");
}

double StepSlowdown::next() {
  double factor = 1.0;
  for (const Rule& rule : rules_) factor *= draw(rule.spec, rule.shared == 0 ? engine_ : shared_[rule.shared - 1]);
  return factor;
}

double StepSlowdown::mean_factor(const scenario::RandomSlowdown& rule) {
  if (rule.distribution == "lognormal") return std::exp(rule.sigma * rule.sigma / 2.0);
  if (rule.distribution == "exponential") return 1.0 + rule.mean;
  if (rule.distribution == "bernoulli") return 1.0 + rule.probability * (rule.factor - 1.0);
  throw std::invalid_argument("unknown slowdown distribution '" + rule.distribution + "'");
}

}  // namespace dtsim::runtime
