#pragma once
// Every plug-in registry, filled with the built-in plug-ins: one set, built once by the program (main, a
// test) and passed to whatever reads scenarios (their format is generated from it), runs them, or lists
// them, so that a plug-in loaded at start-up registers once and is known everywhere.

#include "datasets/data_plugin.hpp"
#include "models/model_plugin.hpp"
#include "models/optimizer.hpp"
#include "sim/comm/collective_algorithm.hpp"
#include "sim/sync/sync_strategy.hpp"
#include "topologies/topology_plugin.hpp"

namespace dtsim::scenario {

struct Registries {
  topologies::TopologyRegistry topologies{"topology"};
  models::ModelRegistry models{"model"};
  datasets::DataRegistry data_sets{"data set"};
  sync::SyncRegistry strategies{"sync strategy"};
  models::OptimizerRegistry optimizers{"optimizer"};
  comm::CollectiveCatalog collectives;
};

Registries make_builtin_registries();

}  // namespace dtsim::scenario
