#include "sim/runtime/jobs/training_run.hpp"

#include "sim/runtime/jobs/training_job.hpp"
#include "sim/runtime/network/background_traffic.hpp"
#include "sim/runtime/network/engine_session.hpp"
#include "sim/runtime/setup/platform_spec.hpp"

namespace dtsim::runtime {

metrics::RunRecord run_training(const scenario::Scenario& scenario, const TrainingSetup& setup,
                                const ProgressCallback& progress, RunObserver* observer) {
  EngineSession session(setup.graph, scenario.topology.network_model, platform_spec(scenario, setup.graph));
  TrainingJob job(session, scenario, setup, progress, observer);
  static_cast<void>(job.start());
  start_background_traffic(session.platform());
  job.start_link_failures();
  const double end_s = session.run();
  return job.finish(end_s);
}

}  // namespace dtsim::runtime
