#pragma once
// Every plug-in registry, filled with the built-in plug-ins. Built once in main and passed down.

#include "datasets/data_plugin.hpp"
#include "models/model_plugin.hpp"
#include "models/optimizer.hpp"
#include "sim/comm/collective_algorithm.hpp"
#include "sim/sync/sync_strategy.hpp"
#include "topologies/topology_plugin.hpp"

#include <string>
#include <vector>

namespace dtsim::app {

struct Registries {
  topologies::TopologyRegistry topologies{"topology"};
  models::ModelRegistry models{"model"};
  datasets::DataRegistry data_sets{"data set"};
  sync::SyncRegistry strategies{"sync strategy"};
  models::OptimizerRegistry optimizers{"optimizer"};
  comm::CollectiveCatalog collectives;
};

Registries make_builtin_registries();

}  // namespace dtsim::app
