#include "sim/runtime/setup/step_slowdown.hpp"

#include <algorithm>
#include <string>

namespace dtsim::runtime {

StepSlowdown::StepSlowdown(const std::vector<scenario::RandomSlowdown>& rules, std::uint64_t seed, int rank) {
  for (std::size_t index = 0; index < rules.size(); ++index) {
    const scenario::RandomSlowdown& rule = rules[index];
    if (!rule.workers.empty() && std::find(rule.workers.begin(), rule.workers.end(), rank) == rule.workers.end()) continue;
    std::size_t shared = 0;
    if (rule.cluster_wide) {
      shared_.push_back(core::random_stream(seed, "stragglers/cluster/" + std::to_string(index)));
      shared = shared_.size();
    }
    rules_.push_back({rule, &core::builtin_slowdowns().find(rule.distribution).factory, shared});
  }
  // The worker's own stream (2.5 KB) only where a rule of its own draws from it: 160 MB for 65,536 workers else.
  if (std::any_of(rules_.begin(), rules_.end(), [](const Rule& rule) { return rule.shared == 0; })) {
    engine_.emplace(core::random_stream(seed, "stragglers/worker/" + std::to_string(rank)));
  }
}

double StepSlowdown::next() {
  double factor = 1.0;
  for (const Rule& rule : rules_) {
    factor *= rule.distribution->draw(rule.spec.parameters, rule.shared == 0 ? *engine_ : shared_[rule.shared - 1]);
  }
  return factor;
}

double StepSlowdown::mean_factor(const scenario::RandomSlowdown& rule) {
  return core::builtin_slowdowns().find(rule.distribution).factory.mean(rule.parameters);
}

}  // namespace dtsim::runtime
