// DiLoCo (Douillard et al. 2023, "DiLoCo: Distributed Low-Communication Training of Language Models",
// arXiv:2311.08105, algorithm 1): every worker starts a round from the global parameters and takes H inner
// steps with the scenario's optimizer (AdamW in the paper); then the outer gradient, the global parameters less
// the worker's own, is averaged over the workers by allreduce, and an outer optimizer, SGD with Nesterov
// momentum, steps the global parameters with it. Every worker goes on from the new global parameters. The
// defaults are the paper's: outer learning rate 0.7, momentum 0.9, Nesterov. With an outer learning rate of 1
// and no momentum, the outer step is the workers' mean: local SGD's averaging.

#include "sim/sync/diloco_family.hpp"
#include "sim/sync/sync_strategy.hpp"

#include <fmt/format.h>

namespace dtsim::sync {
namespace {

class Diloco final : public OuterStepStrategy {
 public:
  using OuterStepStrategy::OuterStepStrategy;
  [[nodiscard]] std::string_view name() const override { return "diloco"; }
  /// An inner step, and every H steps (and after the last) the outer step.
  void after_gradient(std::int64_t iteration, std::int64_t last, LockStepActions& actions) const override {
    inner_step(actions);
    if (iteration % inner_steps() == 0 || iteration == last) actions.outer_step(outer());
  }
};

}  // namespace

void register_diloco(SyncRegistry& registry) {
  registry.add(
      "diloco",
      "DiLoCo: inner_steps steps of the scenario's optimizer on every worker, then the averaged outer gradient "
      "(global less local parameters) applied by SGD with Nesterov momentum (allreduce)",
      {.parameters = diloco_parameters(),
       .make =
           [](const core::ParameterValues& p) {
             return std::make_unique<Diloco>(static_cast<int>(p.integer("inner_steps")), outer_optimizer_of(p),
                                             inner_sync_by_site(p));
           },
       .check = [](const core::ParameterValues& p, const StrategyContext&,
                   core::DiagnosticSink& sink) { check_outer_momentum(p, sink); },
       .example = "{strategy: diloco, inner_steps: 50, outer_learning_rate: 0.7, outer_momentum: 0.9}"});
}

}  // namespace dtsim::sync
