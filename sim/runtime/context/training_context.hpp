#pragma once
// What all actors of one training run share: read-only setup, and the observers they report to.

#include "models/optimizer.hpp"
#include "sim/comm/payload.hpp"
#include "sim/runtime/context/gossip_peers.hpp"
#include "sim/runtime/network/analytical_network.hpp"
#include "sim/runtime/network/phase_shortcut.hpp"
#include "sim/runtime/network/s4u_transport.hpp"
#include "sim/runtime/observe/compute_spans.hpp"
#include "sim/runtime/observe/energy_meter.hpp"
#include "sim/runtime/observe/run_observer.hpp"
#include "sim/runtime/setup/step_slowdown.hpp"
#include "sim/runtime/setup/training_setup.hpp"
#include "sim/runtime/setup/work_pool.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/link_traffic.hpp"

#include <simgrid/s4u/Barrier.hpp>

namespace dtsim::runtime {

struct FailureMeetings;
class JobPause;

/// Which ranks a run simulates: every one, worker 0 for all, or replica 0's ranks each for its counterparts in
/// every replica (see mirrored_ranks.hpp).
enum class Mirroring { none, every_worker, replicas };

/// A run that stops at a target (training.stop.target_loss, target_accuracy). Where every worker holds the same
/// model and moves in lock step (bsp on an allreduce, whole replicas), the replicas' evaluation after an
/// iteration is computed once for every worker, so that all of them stop after the same iteration. Otherwise
/// the evaluator's (after_iteration's) first evaluation that reaches the target ends the whole run at that
/// moment: what the other workers and servers had in flight is abandoned, as a job stopped there would be.
/// And the iteration the run stopped after.
struct TargetStop {
  bool lock_step = true;
  std::int64_t evaluated = -1;  ///< the iteration `train` and `validation` are of
  models::Evaluation train;
  models::Evaluation validation;
  std::optional<std::int64_t> stopped;
};

struct TrainingContext {
  const scenario::Scenario* scenario = nullptr;
  const TrainingSetup* setup = nullptr;
  /// Where every actor reports what it does (the run's record among them); never null.
  RunObserver* observer = nullptr;
  ProgressCallback progress;
  /// What the run's transports share: the bytes per link, filled by every transport of the run, and the pieces
  /// of the scenario's network backend (RunNetwork).
  RunNetwork network;
  /// Per worker rank, the random straggler factors of its gradient steps (1 for a rank no rule names).
  std::vector<StepSlowdown>* step_slowdowns = nullptr;
  /// Energy runs: reads the joules drawn so far into each evaluation; null otherwise.
  const EnergyMeter* energy = nullptr;
  /// How lock-step workers meet after each iteration when workers fail (shared by the run's workers).
  FailureMeetings* failures = nullptr;
  /// Ranks that stand for others, which behave alike and are not simulated (see mirrored_ranks.hpp).
  Mirroring mirroring = Mirroring::none;
  /// Runs that stop at a target; null otherwise.
  TargetStop* target_stop = nullptr;
  /// The cores the workers' gradients are computed on (work_pool.hpp); null: on the simulation's thread.
  WorkPool* pool = nullptr;
  /// Gossiping runs: each worker's neighbours and each round's partners, shared by the workers; null otherwise.
  GossipPeers* gossip = nullptr;
  /// A job that may be preempted on a shared cluster (job_pause.hpp); null otherwise.
  JobPause* pause = nullptr;
  /// Workers out of lock step (asynchronous strategies on parameter servers): the gradient steps each worker has
  /// pushed so far, by rank, so that an evaluation's epoch counts the samples every worker has seen, not the
  /// evaluator's steps alone; null otherwise.
  std::vector<std::int64_t>* worker_steps = nullptr;

  /// The handle of actor `actor` on host `host` (workers by rank, then servers).
  [[nodiscard]] Meter meter(int host, int actor = 0, bool concurrent = false) const {
    return Meter(*observer, Lane{host, actor, concurrent});
  }
};

/// Real gradient on `rows` of the training set, with its simulated compute time charged to this actor's
/// host (reported to `meter`): the roofline of the batch's forward and backward FLOPs and its memory traffic, times worker
/// `rank`'s random straggler factor for the step. Returns the batch loss. With a pool, a batch of at least
/// kPooledFlops is computed on it while the actor sleeps through the simulated time; `parameters` and `gradient`
/// must stay put meanwhile (each is the worker's own).
/// A batch's FLOPs from which its gradient goes to the pool: about 50 us of one core's math at 2 GFLOPS, chosen (not
/// measured) to stay well above what handing a task over and waking for it cost (a lock, a wake-up and a future), so
/// that tiny batches stay on the simulation's thread. Only where the work goes depends on it, never a result.
inline constexpr double kPooledFlops = 1e5;

double compute_gradient(const TrainingContext& context, const Meter& meter, int rank,
                        const models::Parameters& parameters, std::span<const std::size_t> rows,
                        models::Parameters& gradient);

/// Worker `rank`'s random straggler factor for its next gradient step (1 without random stragglers).
double step_factor(const TrainingContext& context, int rank);

/// Message elements (4 bytes each, the transport's unit) carrying `values` values of `bytes` bytes each,
/// padded to a multiple of `ranks` as collective libraries pad.
std::size_t wire_elements(double values, int bytes, std::size_t ranks);
/// The same for values of `bits` bits each (a 4-bit float's half byte).
std::size_t wire_elements_of_bits(double values, int bits, std::size_t ranks);

/// The scenario's optimizer, with state for `size` parameters.
std::unique_ptr<models::Optimizer> make_optimizer(const TrainingContext& context, std::size_t size);

/// `values` as a message.
comm::Buffer to_buffer(const models::Parameters& values);

/// Whether after_iteration() evaluates after `iteration`: every `evaluate_every` iterations and after the last.
bool evaluation_due(const TrainingSetup& setup, std::int64_t iteration);

/// After iteration `iteration` (0 = before training), records an evaluation row when one is due
/// (every `evaluate_every` iterations and after the last), its epoch the samples seen over the training set's
/// (worker_steps where the workers are out of lock step), keeps the final parameters, and reports
/// progress. Costs no simulated time. Called by worker 0 only. In a run that stops at a target out of lock step
/// (TargetStop), an evaluation that reaches it ends the simulation at this moment: every actor, the caller too,
/// is stopped where it next waits.
void after_iteration(const TrainingContext& context, std::int64_t iteration, const models::Parameters& parameters);

/// Each worker before it begins iteration `iteration`: where a job preempted on a shared cluster pauses
/// (JobPause). `drain`, when given, waits for the worker's work still in flight before its checkpoint.
void before_iteration(const TrainingContext& context, std::int64_t iteration, const Meter& meter, int rank,
                      const std::function<void()>& drain = {});

/// Whether the run stops after `iteration`: an evaluation is due there and reaches the scenario's target. Every
/// worker of a run that stops at a target asks, with its parameters (the same as every other's); the first to ask
/// evaluates. Worker 0 (`records`) then reports its parameters as the final ones. False without a target.
bool target_reached(const TrainingContext& context, std::int64_t iteration, const models::Parameters& parameters,
                    bool records);

}  // namespace dtsim::runtime
