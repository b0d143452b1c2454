#include "sim/scenario/registries.hpp"

namespace dtsim::scenario {

Registries make_builtin_registries() {
  Registries registries;
  topologies::register_builtin_topologies(registries.topologies);
  models::register_builtin_models(registries.models);
  datasets::register_builtin_data_sets(registries.data_sets);
  sync::register_builtin_strategies(registries.strategies);
  models::register_builtin_optimizers(registries.optimizers);
  comm::register_builtin_collectives(registries.collectives);
  return registries;
}

}  // namespace dtsim::scenario
