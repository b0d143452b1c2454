#pragma once
// What DiLoCo and Streaming DiLoCo share: their parameters under `training.sync`, declared once (a key means one
// thing in every strategy that takes it), and their lock-step inner steps between outer steps.

#include "sim/core/parameter_values.hpp"
#include "sim/core/schema.hpp"
#include "sim/sync/sync_strategy.hpp"

#include <vector>

namespace dtsim::sync {

/// inner_steps (required), outer_learning_rate, outer_momentum, nesterov and inner_sync.
std::vector<core::SchemaNode> diloco_parameters();
/// The outer optimizer the values of diloco_parameters() give.
OuterOptimizer outer_optimizer_of(const core::ParameterValues& values);
/// Whether they say the sites take the inner steps together.
bool inner_sync_by_site(const core::ParameterValues& values);
/// The rule of those values alone: an outer momentum below 1.
void check_outer_momentum(const core::ParameterValues& values, core::DiagnosticSink& sink);

/// A strategy of inner steps (each worker's own, or its site's) with an outer optimizer's step every H of them.
class OuterStepStrategy : public SyncStrategy {
 public:
  OuterStepStrategy(int inner_steps, OuterOptimizer outer, bool with_site)
      : inner_steps_(inner_steps), outer_(outer), with_site_(with_site) {}
  [[nodiscard]] bool lock_step() const override { return true; }
  [[nodiscard]] Apply apply() const override { return Apply::ByClock; }
  [[nodiscard]] int staleness_bound() const override { return 0; }
  [[nodiscard]] int local_steps() const override { return inner_steps_; }
  [[nodiscard]] const OuterOptimizer* outer_optimizer() const override { return &outer_; }
  [[nodiscard]] bool steps_with_its_site() const override { return with_site_; }

 protected:
  /// An inner step: the worker's own, or its site's.
  void inner_step(LockStepActions& actions) const {
    if (with_site_) {
      actions.apply_site_averaged_gradient();
    } else {
      actions.apply_own_gradient();
    }
  }
  [[nodiscard]] int inner_steps() const { return inner_steps_; }
  [[nodiscard]] const OuterOptimizer& outer() const { return outer_; }

 private:
  int inner_steps_;
  OuterOptimizer outer_;
  bool with_site_;
};

}  // namespace dtsim::sync
