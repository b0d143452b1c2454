#pragma once
// A scenario given as YAML text, resolved with the built-in plug-ins and simulated, kept whole for tests to
// check against references.

#include "sim/checks/registries.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/sim/recording_observer.hpp"
#include "tests/support/scenario_format.hpp"

#include <string>
#include <utility>

namespace dtsim::testing {

struct SimulatedRun {
  scenario::Scenario scenario;
  runtime::TrainingSetup setup;
  metrics::RunRecord record;
  RecordingObserver observed;
};

/// Simulates `text`, read as the file `file_name` (which error messages name).
inline SimulatedRun simulate_text(const std::string& text, const std::string& file_name, bool measure_updates = false) {
  auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), text, file_name);
  const checks::Registries& registries = dtsim::test::scenario_format().registries();
  auto setup = checks::resolve_scenario(scenario, registries);
  RecordingObserver observed;
  observed.measure_updates = measure_updates;
  auto record = runtime::run_training(scenario, setup, {}, &observed);
  return {std::move(scenario), std::move(setup), std::move(record), std::move(observed)};
}

}  // namespace dtsim::testing
