#pragma once
// From a validated scenario to a runnable setup: plug-ins looked up by name, topology built, data made,
// and the checks that need more than one section. Every failure is an InputError at the scenario line.

#include "sim/app/registries.hpp"
#include "sim/runtime/training_setup.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::app {

/// The checks that need the plug-ins (a server in the topology, data enough for one batch), without
/// building the data set: what `dtsim validate` runs after reading.
void check_scenario(const scenario::Scenario& scenario, const Registries& registries);

/// check_scenario, then everything a run needs.
runtime::TrainingSetup resolve_scenario(const scenario::Scenario& scenario, const Registries& registries);

}  // namespace dtsim::app
