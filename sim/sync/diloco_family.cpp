#include "sim/sync/diloco_family.hpp"

namespace dtsim::sync {

std::vector<core::SchemaNode> diloco_parameters() {
  return {core::integer("inner_steps", 1, 1'000'000'000,
                        "inner steps between outer steps (H; DiLoCo's 500, Streaming DiLoCo's 100), each fragment's "
                        "under streaming_diloco")
              .require(),
          core::number("outer_learning_rate", 0.0, 1e3,
                       "the outer optimizer's learning rate (DiLoCo's 0.7; Streaming DiLoCo's runs used 0.4)")
              .fallback("0.7")
              .exclusive_min(),
          core::number("outer_momentum", 0.0, 1.0, "the outer optimizer's momentum (0: plain SGD)").fallback("0.9"),
          core::boolean("nesterov", "Nesterov's momentum (the paper's) rather than heavy-ball").fallback("true"),
          core::choice_of("inner_sync", "inner synchronization", "who takes an inner step together",
                          {{"worker", "each worker alone (DiLoCo's workers)"},
                           {"site",
                            "the workers of a site (topology.kind: sites), their gradients allreduced every "
                            "step: each datacenter one DiLoCo worker"}})
              .fallback("worker")};
}

OuterOptimizer outer_optimizer_of(const core::ParameterValues& values) {
  return {values.number("outer_learning_rate"), values.number("outer_momentum"), values.boolean("nesterov")};
}

bool inner_sync_by_site(const core::ParameterValues& values) { return values.text("inner_sync") == "site"; }

void check_outer_momentum(const core::ParameterValues& values, core::DiagnosticSink& sink) {
  // A momentum of 1 never forgets an outer gradient: the steps grow without bound.
  if (values.number("outer_momentum") >= 1.0) {
    sink.error(values.where("outer_momentum"), "training.sync.outer_momentum", "the outer momentum must be below 1",
               "use the paper's 0.9, or 0 for plain SGD");
  }
}

}  // namespace dtsim::sync
