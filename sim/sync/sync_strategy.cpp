#include "sim/sync/sync_strategy.hpp"

namespace dtsim::sync {

void register_builtin_strategies(SyncRegistry& registry) {
  registry.add("bsp", "bulk synchronous parallel: all workers' gradients in every update",
               [] { return std::make_unique<Bsp>(); });
}

}  // namespace dtsim::sync
