#include "sim/scenario/plugin_schema.hpp"

namespace dtsim::scenario {

const sync::SyncRegistry& builtin_sync_strategies() {
  static const sync::SyncRegistry registry = [] {
    sync::SyncRegistry built("sync strategy");
    sync::register_builtin_strategies(built);
    return built;
  }();
  return registry;
}

const models::OptimizerRegistry& builtin_optimizers() {
  static const models::OptimizerRegistry registry = [] {
    models::OptimizerRegistry built("optimizer");
    models::register_builtin_optimizers(built);
    return built;
  }();
  return registry;
}

}  // namespace dtsim::scenario
