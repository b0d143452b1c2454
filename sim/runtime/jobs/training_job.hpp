#pragma once
// One training job on an engine: its actors and everything they share (the record, the observers, the links'
// byte counts, the meetings of lock-step workers). A run of one job makes one (training_run.hpp); a cluster run
// (cluster_run.hpp) makes one per job, each started when the scheduler places it.

#include "sim/metrics/run_record.hpp"
#include "sim/runtime/network/engine_session.hpp"
#include "sim/runtime/observe/run_observer.hpp"
#include "sim/runtime/setup/training_setup.hpp"
#include "sim/scenario/scenario.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dtsim::runtime {

class JobPause;
class LinkSharing;

class TrainingJob {
 public:
  /// `scenario`, `setup` and `session` must outlive it. `observer`, when given, watches the job (see RunObserver).
  /// `prefix` goes before its mailboxes' names, so that jobs sharing the engine keep their messages apart.
  TrainingJob(EngineSession& session, const scenario::Scenario& scenario, const TrainingSetup& setup,
              const ProgressCallback& progress, RunObserver* observer, std::string prefix = {});
  ~TrainingJob();
  TrainingJob(const TrainingJob&) = delete;
  TrainingJob& operator=(const TrainingJob&) = delete;

  /// Lets the job be preempted (job_pause.hpp): a checkpoint of its model and optimizer state (4 bytes a value)
  /// moves at `checkpoint_bytes_per_s`; `left` is told when every worker has written it. Call before start().
  JobPause& make_preemptible(double checkpoint_bytes_per_s, std::function<void()> left);
  /// Under the analytical network: its phases and messages share the links with other jobs', as job `job` of
  /// `sharing` (link_sharing.hpp). Nothing under SimGrid's networks, whose messages share them already. Call
  /// before start().
  void share_links(LinkSharing& sharing, int job);
  /// Creates the job's actors on its hosts at the engine's clock; returns them. Call once.
  std::vector<simgrid::s4u::ActorPtr> start();
  /// Starts the scenario's link failures (after any other traffic's actors, as a run of one job orders them).
  void start_link_failures();
  /// Once the engine has run the job to its end at `end_s`: its record.
  metrics::RunRecord finish(double end_s);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace dtsim::runtime
