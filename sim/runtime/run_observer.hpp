#pragma once
// Watching a training run from outside: what its result files do not hold (each push decision, the factor
// an update really applied, the final parameters) reaches an observer through these hooks, instead of the
// actors filling record fields that only tests read.

#include <cstdint>
#include <span>

namespace dtsim::runtime {

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  /// Approximate synchronous: `worker` decided to push the update it held for `delay` steps, whose norm over
  /// the parameters' norm is `relative`; `last` for the final push, sent whatever its size.
  virtual void on_push(int /*worker*/, double /*relative*/, std::int64_t /*delay*/, bool /*last*/) {}
  /// On arrival, one gradient per update (first shard): its staleness, and the factor on the learning rate the
  /// update really applied (its step over the step the same optimizer takes at the plain rate). Called only
  /// when measures_updates() says so: measuring copies the optimizer for every update.
  virtual void on_update_applied(std::int64_t /*staleness*/, double /*rate_factor*/) {}
  [[nodiscard]] virtual bool measures_updates() const { return false; }
  /// Worker 0's parameters after the last iteration.
  virtual void on_final_parameters(std::span<const float> /*parameters*/) {}
};

}  // namespace dtsim::runtime
