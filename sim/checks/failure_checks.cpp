#include "sim/checks/failure_checks.hpp"

#include "sim/metrics/projection.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dtsim::checks {

namespace {

/// A server failure names a shard of a parameter-server run.
void check_failed_servers(const scenario::Scenario& s, core::DiagnosticSink& sink) {
  for (const scenario::ServerFailure& failure : s.failures.server_events) {
    if (s.training.architecture != scenario::Architecture::ParameterServer) {
      sink.error(failure.where, "failures.events.target",
                 fmt::format("a server failure needs parameter servers, and the architecture is {}{}",
                             scenario::to_string(s.training.architecture),
                             s.training.architecture == scenario::Architecture::Hybrid ? " (not supported yet there)" : ""),
                 "use training.architecture.kind: parameter_server, or fail a worker or a link");
    } else if (failure.shard < 0 || failure.shard >= s.training.shards) {
      sink.error(failure.where, "failures.events.target",
                 fmt::format("expected a server (shard) index from 0 to {}, got {}", s.training.shards - 1, failure.shard));
    }
  }
}

/// False, after an error, where keys that only a budget's projection knows are given to a run that simulates
/// its iterations: the checks that follow would only repeat it.
bool failure_keys_fit_simulation(const scenario::Scenario& s, core::DiagnosticSink& sink) {
  const scenario::FailureSpec& f = s.failures;
  if (f.by_component() && !s.failures_projected()) {
    sink.error(f.components_at, f.catalog ? "failures.catalog" : "failures.components",
               "failures by component kind are projected over a budget's whole run, and this run simulates its "
               "iterations",
               "give the run a budget (training.stop.tokens or samples), or fail workers with failures.random");
    return false;
  }
  if (!f.projected_key.empty() && !s.failures_projected()) {
    sink.error(f.projected_at, "failures." + f.projected_key,
               "hot spares, shrinking, draws and asynchronous checkpoints are projected over a budget's whole run, and "
               "this run simulates its iterations",
               "give the run a budget (training.stop.tokens or samples), or use failures.elastic to go on without "
               "failed workers in a simulated run");
    return false;
  }
  return true;
}

/// A projected run that shrinks must keep a data-parallel replica when a node fails.
void check_shrink_leaves_replicas(const scenario::Scenario& s, core::DiagnosticSink& sink) {
  const scenario::FailureSpec& f = s.failures;
  if (!f.shrink || !s.failures_projected()) return;
  // A shrunk job goes on with the replicas a failed node holds no part of: it needs one at least.
  const int replicas = std::max(1, s.training.parallelism.data);
  const int per_node = metrics::replicas_per_node(s, replicas);
  if (replicas <= per_node) {
    sink.error(f.shrink_at, "failures.shrink",
               fmt::format("a shrunk job goes on without a failed node's data-parallel replicas, and with {} "
                           "replica{} of which a node holds {}, none would be left",
                           replicas, replicas == 1 ? "" : "s", per_node),
               "leave shrink out to wait for the repair, add hot spares (failures.spares), or raise "
               "training.parallelism.data");
  }
}

/// Worker failures on an allreduce: lock-step strategies only, and no repair for an elastic job.
void check_allreduce_worker_failures(const scenario::Scenario& s, const sync::SyncStrategy& strategy,
                                     core::DiagnosticSink& sink) {
  const scenario::FailureSpec& f = s.failures;
  const std::string& name = s.training.sync_strategy.value;
  if (!strategy.averages_in_lock_step()) {
    sink.error(f.where, "failures",
               fmt::format("on an allreduce, failures roll lock-step jobs (bsp, local_sgd) back to a checkpoint, "
                           "and '{}' is not supported yet",
                           name),
               "use training.sync.strategy: bsp or local_sgd, or a parameter server (async and ssp go on "
               "without the dead worker there)");
  } else if (strategy.streaming() != nullptr) {
    // A rollback would have to take back the fragments still on their way, and restore the outer state.
    sink.error(f.where, "failures",
               fmt::format("a rollback does not take back '{}''s fragments on their way in this version", name),
               "use training.sync.strategy: diloco with failures, or leave the failures out");
  } else if (strategy.outer_optimizer() != nullptr && !s.model.timing_only) {
    // A rollback restores the parameters, the optimizer and the data, not the global parameters and the
    // outer momentum a round started from.
    sink.error(
        f.where, "failures",
        fmt::format("a rollback does not restore '{}''s global parameters and outer momentum in this version", name),
        "train for real without failures, or project them on a timing-only profile (model.kind: profile:...)");
  }
  if (!f.elastic) return;
  // The survivors go on without a failed worker: nothing brings it back.
  for (const scenario::WorkerFailure& event : f.events) {
    if (!event.repair_s) continue;
    sink.error(event.where, "failures.events.repair_after",
               "an elastic job goes on without a failed worker, which does not come back",
               "remove repair_after, or elastic to roll back and wait for the repair");
  }
  if (f.random_repair_s) {
    sink.error(f.random_at, "failures.random.repair_after",
               "an elastic job goes on without a failed worker, which does not come back",
               "remove repair_after, or elastic to roll back and wait for the repair");
  }
}

/// Worker failures on a parameter server: BSP only if elastic, and worker 0 always comes back.
void check_parameter_server_worker_failures(const scenario::Scenario& s, const sync::SyncStrategy& strategy,
                                            core::DiagnosticSink& sink) {
  const scenario::FailureSpec& f = s.failures;
  if (strategy.lock_step() && !f.elastic) {
    sink.error(f.where, "failures",
               "BSP on a parameter server would roll back to a checkpoint, which is not supported yet there",
               "set failures.elastic: true to go on with the surviving workers, or use the allreduce architecture");
  }
  // Worker 0 records the evaluations: it may fail and come back, not leave.
  for (const scenario::WorkerFailure& event : f.events) {
    if (event.worker == 0 && !event.repair_s) {
      sink.error(event.where, "failures.events.target",
                 "worker 0 records the evaluations and cannot leave for good",
                 "give it a repair_after, or let another worker fail");
    }
  }
  const bool zero_may_fail =
      f.random_workers.empty() || std::find(f.random_workers.begin(), f.random_workers.end(), 0) != f.random_workers.end();
  if (f.mtbf_s && !f.random_repair_s && zero_may_fail) {
    sink.error(f.random_at, "failures.random",
               "random failures without repair would let worker 0, which records the evaluations, leave for good",
               "give failures.random a repair_after, or list the workers that may fail without 0");
  }
}

}  // namespace

void check_failures(const scenario::Scenario& s, const sync::SyncStrategy& strategy, core::DiagnosticSink& sink) {
  const scenario::FailureSpec& f = s.failures;
  if (!f.enabled) return;
  check_failed_servers(s, sink);
  if (!failure_keys_fit_simulation(s, sink)) return;
  check_shrink_leaves_replicas(s, sink);
  // Link failures re-route on any architecture; what follows is about workers.
  if (f.events.empty() && !f.mtbf_s) return;
  // A budget's failures are projected, not simulated (check_projected_failures says what may be).
  if (s.failures_projected()) return;
  if (s.model.timing_only) {
    sink.error(f.where, "failures", "worker failures are not supported yet in timing-only (profile) runs",
               "use a model that trains on data, or fail links only");
    return;
  }
  switch (s.training.architecture) {
    case scenario::Architecture::Hybrid:
      sink.error(f.where, "failures", "worker failures are not supported yet on the hybrid architecture",
                 "use training.architecture.kind: allreduce or parameter_server");
      return;
    case scenario::Architecture::Allreduce:
      check_allreduce_worker_failures(s, strategy, sink);
      return;
    case scenario::Architecture::ParameterServer:
      break;
  }
  check_parameter_server_worker_failures(s, strategy, sink);
}

}  // namespace dtsim::checks
