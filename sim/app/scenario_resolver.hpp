#pragma once
// From a validated scenario to a runnable setup: plug-ins looked up by name, topology built, data made,
// and the checks that need more than one section. Every failure is an InputError at the scenario line.

#include "sim/app/registries.hpp"
#include "sim/runtime/training_setup.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::app {

runtime::TrainingSetup resolve_scenario(const scenario::Scenario& scenario, const Registries& registries);

}  // namespace dtsim::app
