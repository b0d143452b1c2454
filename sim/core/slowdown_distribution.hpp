#pragma once
// Random straggler factors (`stragglers[].distribution`) as plug-ins: each distribution declares its own
// parameters, draws a factor on a gradient step from a seeded stream, and knows its mean.

#include "sim/core/parameter_values.hpp"
#include "sim/core/registry.hpp"
#include "sim/core/rng.hpp"
#include "sim/core/schema.hpp"

#include <functional>
#include <string>
#include <vector>

namespace dtsim::core {

struct SlowdownDistribution {
  std::vector<SchemaNode> parameters;
  /// One factor (>= 1 for the built-in ones) from `engine`.
  std::function<double(const ParameterValues&, RandomEngine&)> draw;
  /// The factor's expected value.
  std::function<double(const ParameterValues&)> mean;
  std::string example;  ///< one straggler rule, as YAML
};

using SlowdownRegistry = Registry<SlowdownDistribution>;

/// Adds lognormal, exponential and bernoulli.
void register_builtin_slowdowns(SlowdownRegistry& registry);

/// The built-in distributions, registered once (the scenario format and the runs read them).
const SlowdownRegistry& builtin_slowdowns();

}  // namespace dtsim::core
