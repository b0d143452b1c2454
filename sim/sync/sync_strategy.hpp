#pragma once
// Synchronization strategies decide when updates happen; they never move bytes themselves.

#include "sim/core/registry.hpp"

#include <functional>
#include <memory>
#include <string_view>

namespace dtsim::sync {

class SyncStrategy {
 public:
  virtual ~SyncStrategy() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// True when all workers advance together, one step at a time (required by allreduce architectures).
  [[nodiscard]] virtual bool lock_step() const = 0;
  /// How many gradients a parameter server combines into one update, when `workers` push to it.
  [[nodiscard]] virtual int gradients_per_update(int workers) const = 0;
};

/// Bulk synchronous parallel: every step, every worker's gradient goes into one update, and no worker
/// starts the next step before that update is done.
class Bsp final : public SyncStrategy {
 public:
  [[nodiscard]] std::string_view name() const override { return "bsp"; }
  [[nodiscard]] bool lock_step() const override { return true; }
  [[nodiscard]] int gradients_per_update(int workers) const override { return workers; }
};

using SyncFactory = std::function<std::unique_ptr<SyncStrategy>()>;
using SyncRegistry = core::Registry<SyncFactory>;

void register_builtin_strategies(SyncRegistry& registry);

}  // namespace dtsim::sync
