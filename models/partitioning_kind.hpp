#pragma once
// How training samples are split over workers, as a scenario names it (`data.partitioning.kind`); what each
// does is in partitioning.hpp.

namespace dtsim::models {

enum class Partitioning {
  Iid,        ///< the order the data come in (generated i.i.d., or shuffled when read)
  ByLabel,    ///< sorted by label: each worker sees few classes
  Dirichlet,  ///< each worker's class shares drawn from Dirichlet(alpha)
};

}  // namespace dtsim::models
