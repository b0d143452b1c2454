#pragma once
// Several training jobs on one cluster, in one engine: a scheduler actor queues the jobs as they arrive, places
// each on free devices (cluster_placement.hpp) when the policy lets it start (job_queue.hpp), and starts its actors
// there; the jobs' messages share the cluster's links under the network model. Creates the process's SimGrid
// engine: call once per process.

#include "sim/metrics/cluster_result.hpp"
#include "sim/metrics/link_timeline.hpp"
#include "sim/metrics/run_record.hpp"
#include "sim/runtime/setup/training_setup.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/topology_graph.hpp"

#include <functional>
#include <optional>
#include <vector>

namespace dtsim::runtime {

/// One job of a cluster run. `setup` is made before the run, with any graph: at its start its graph becomes the
/// cluster's with the job's devices as its workers. A replayed job (the runs that measure what other jobs cost it)
/// skips the queue: it starts at `start_s` on `ranks` (the cluster's worker ranks).
struct ClusterJob {
  const scenario::JobSpec* spec = nullptr;
  TrainingSetup* setup = nullptr;
  std::optional<double> start_s;
  std::vector<int> ranks;
};

struct JobOutcome {
  double start_s = 0.0;
  double end_s = 0.0;
  std::vector<int> ranks;  ///< the cluster's worker ranks, in the job's rank order
  /// Preemption: each time it was stopped, and the time to write its checkpoint (and to read it back).
  std::vector<metrics::JobStop> stops;
  double checkpoint_s = 0.0;
  /// Its bytes on each link direction at its iteration ends (metrics/link_timeline.hpp).
  std::vector<metrics::LinkSample> link_samples;
  metrics::RunRecord record;
};

/// What happened to a job: it started, ended, left its devices preempted, or resumed on them.
enum class JobChange { started, ended, left, resumed };
/// Told of each change of a job at simulated time `at_s`.
using JobEvent = std::function<void(std::size_t job, double at_s, JobChange change)>;

/// Runs `jobs` on the cluster of `cluster` (its graph `graph`: every device a worker) to their ends; their
/// outcomes, in the order of `jobs`. A job whose devices or hosts the cluster does not have throws InputError.
std::vector<JobOutcome> run_cluster(const scenario::Scenario& cluster, const topology::TopologyGraph& graph,
                                    const std::vector<ClusterJob>& jobs, const JobEvent& on_event = {});

}  // namespace dtsim::runtime
