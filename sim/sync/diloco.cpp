// DiLoCo (Douillard et al. 2023, "DiLoCo: Distributed Low-Communication Training of Language Models",
// arXiv:2311.08105, algorithm 1): every worker starts a round from the global parameters and takes H inner
// steps with the scenario's optimizer (AdamW in the paper); then the outer gradient, the global parameters less
// the worker's own, is averaged over the workers by allreduce, and an outer optimizer, SGD with Nesterov
// momentum, steps the global parameters with it. Every worker goes on from the new global parameters. The
// defaults are the paper's: outer learning rate 0.7, momentum 0.9, Nesterov. With an outer learning rate of 1
// and no momentum, the outer step is the workers' mean: local SGD's averaging.

#include "sim/sync/diloco_parameters.hpp"
#include "sim/sync/sync_strategy.hpp"

#include <fmt/format.h>

namespace dtsim::sync {
namespace {

class Diloco final : public SyncStrategy {
 public:
  Diloco(int inner_steps, OuterOptimizer outer, bool with_site)
      : inner_steps_(inner_steps), outer_(outer), with_site_(with_site) {}
  [[nodiscard]] std::string_view name() const override { return "diloco"; }
  [[nodiscard]] bool lock_step() const override { return true; }
  [[nodiscard]] Apply apply() const override { return Apply::ByClock; }
  [[nodiscard]] int staleness_bound() const override { return 0; }
  [[nodiscard]] int local_steps() const override { return inner_steps_; }
  [[nodiscard]] const OuterOptimizer* outer_optimizer() const override { return &outer_; }
  [[nodiscard]] bool steps_with_its_site() const override { return with_site_; }
  /// An inner step (the worker's own, or its site's), and every H steps (and after the last) the outer step.
  void after_gradient(std::int64_t iteration, std::int64_t last, LockStepActions& actions) const override {
    if (with_site_) {
      actions.apply_site_averaged_gradient();
    } else {
      actions.apply_own_gradient();
    }
    if (iteration % inner_steps_ == 0 || iteration == last) actions.outer_step(outer_);
  }

 private:
  int inner_steps_;
  OuterOptimizer outer_;
  bool with_site_;
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
