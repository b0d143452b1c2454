#include "sim/scenario/plugin_schema.hpp"

namespace dtsim::scenario {
namespace {

template <class Registry>
Registry filled(const char* kind, void (*add_builtins)(Registry&)) {
  Registry registry(kind);
  add_builtins(registry);
  return registry;
}

}  // namespace

sync::SyncRegistry& format_sync_strategies() {
  static auto registry = filled<sync::SyncRegistry>("sync strategy", sync::register_builtin_strategies);
  return registry;
}

const sync::SyncRegistry& builtin_sync_strategies() { return format_sync_strategies(); }

const models::OptimizerRegistry& builtin_optimizers() {
  static const auto registry = filled<models::OptimizerRegistry>("optimizer", models::register_builtin_optimizers);
  return registry;
}

const topologies::TopologyRegistry& builtin_topologies() {
  static const auto registry = filled<topologies::TopologyRegistry>("topology", topologies::register_builtin_topologies);
  return registry;
}

const datasets::DataRegistry& builtin_data_sets() {
  static const auto registry = filled<datasets::DataRegistry>("data set", datasets::register_builtin_data_sets);
  return registry;
}

const models::ModelRegistry& builtin_models() {
  static const auto registry = filled<models::ModelRegistry>("model", models::register_builtin_models);
  return registry;
}

comm::CollectiveCatalog& format_collectives() {
  static comm::CollectiveCatalog catalog = [] {
    comm::CollectiveCatalog filled;
    comm::register_builtin_collectives(filled);
    return filled;
  }();
  return catalog;
}

const comm::CollectiveCatalog& builtin_collectives() { return format_collectives(); }

}  // namespace dtsim::scenario
