#include "sim/core/slowdown_distribution.hpp"

#include <cmath>

namespace dtsim::core {

void register_builtin_slowdowns(SlowdownRegistry& registry) {
  registry.add("lognormal", "factor exp(sigma N(0, 1)); mean exp(sigma^2 / 2)",
               {.parameters = {number("sigma", 0.0, 10.0, "log-normal spread").exclusive_min().require()},
                .draw = [](const ParameterValues& p,
                           RandomEngine& engine) { return std::exp(p.number("sigma") * standard_normal(engine)); },
                .mean = [](const ParameterValues& p) { return std::exp(p.number("sigma") * p.number("sigma") / 2.0); },
                .example = "{distribution: lognormal, sigma: 0.5}"});
  registry.add("exponential", "factor 1 + Exp with mean `mean` (a long tail); mean 1 + mean",
               {.parameters = {number("mean", 0.0, 1e6, "mean extra factor").exclusive_min().require()},
                .draw = [](const ParameterValues& p,
                           RandomEngine& engine) { return 1.0 + exponential(engine, p.number("mean")); },
                .mean = [](const ParameterValues& p) { return 1.0 + p.number("mean"); },
                .example = "{distribution: exponential, mean: 0.5}"});
  registry.add("bernoulli", "factor `factor` with probability `probability`, else 1",
               {.parameters = {number("probability", 0.0, 1.0, "chance of a slow step").require(),
                               number("factor", 1.0, 1e6, "slowdown of a slow step").require()},
                .draw = [](const ParameterValues& p,
                           RandomEngine& engine) {
                  return uniform01(engine) < p.number("probability") ? p.number("factor") : 1.0;
                },
                .mean = [](const ParameterValues& p) { return 1.0 + p.number("probability") * (p.number("factor") - 1.0); },
                .example = "{distribution: bernoulli, probability: 0.1, factor: 4}"});
}

const SlowdownRegistry& builtin_slowdowns() {
  static const SlowdownRegistry registry = [] {
    SlowdownRegistry built("slowdown distribution");
    register_builtin_slowdowns(built);
    return built;
  }();
  return registry;
}

}  // namespace dtsim::core
