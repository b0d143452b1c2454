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

}  // namespace dtsim::scenario
