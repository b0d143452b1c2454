#include "sim/runtime/data_parallel/stale_synchronous_allreduce.hpp"

#include "sim/runtime/network/s4u_transport.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <deque>
#include <memory>

namespace dtsim::runtime {
namespace s4u = simgrid::s4u;
namespace {

/// What one worker and its averaging actor share (both run on the same host).
struct Shared {
  s4u::MutexPtr mutex = s4u::Mutex::create();
  s4u::ConditionVariablePtr changed = s4u::ConditionVariable::create();
  std::deque<models::Parameters> gradients;  ///< computed and not yet allreduced, oldest clock first
  models::Parameters parameters;             ///< with the update of every averaged clock applied
  std::int64_t averaged = 0;                 ///< clocks whose update is applied
};

/// Waits for `ready` on `shared.changed`, then calls `then` with the mutex held. The mutex is taken and given back
/// by hand, never by a destructor: an actor killed meanwhile (a run that stopped at its target) unwinds without a
/// call into the engine, which a destructor may not make then.
template <typename Ready, typename Then>
void when(const Shared& shared, Ready ready, Then then) {
  shared.mutex->lock();
  while (!ready()) shared.changed->wait(shared.mutex);
  then();
  shared.mutex->unlock();
}

void average_in_order(const TrainingContext& context, int rank, const std::shared_ptr<Shared>& shared) {
  const TrainingSetup& setup = *context.setup;
  const int workers = context.scenario->cluster.workers;
  // The averaging actor's own lane: its time joins the host's when it ends.
  const Meter meter = context.meter(rank, 1);
  S4uTransport transport(context.network,
                         {.name = "allreduce", .rank = rank, .size = workers, .machines = setup.graph.worker_machines()},
                         meter);
  const std::unique_ptr<models::Optimizer> optimizer = make_optimizer(context, setup.model().parameter_count());
  for (std::int64_t clock = 1; clock <= setup.total_iterations; ++clock) {
    models::Parameters gradient;
    when(*shared, [&] { return !shared->gradients.empty(); }, [&] {
      gradient = std::move(shared->gradients.front());
      shared->gradients.pop_front();
    });
    const auto count = static_cast<std::size_t>(gradient.size());
    setup.collectives.allreduce().run(transport, comm::Block(std::span<float>(gradient.data(), count)));
    gradient /= static_cast<float>(workers);
    // The worker may read the parameters while the step's time passes: it sees them before or after.
    models::Parameters next = shared->parameters;
    optimizer->apply(next, gradient);
    charge_compute(meter, optimizer->flops(count));
    // Actors take turns (SimGrid runs one at a time): the waiters see the change whole when notified.
    shared->parameters = std::move(next);
    shared->averaged = clock;
    shared->changed->notify_all();
    if (rank == 0) {
      context.observer->on_update();
      after_iteration(context, clock, shared->parameters);
    }
  }
  context.observer->on_lane_done(meter.lane());
}

}  // namespace

void run_stale_synchronous_allreduce(const TrainingContext& context, int rank) {
  const TrainingSetup& setup = *context.setup;
  const Meter meter = context.meter(rank);
  auto shared = std::make_shared<Shared>();
  shared->parameters = setup.model().initial_parameters();
  const s4u::ActorPtr averaging = s4u::Actor::create(s4u::this_actor::get_name() + "/averaging", s4u::this_actor::get_host(),
                                                     [context, rank, shared] { average_in_order(context, rank, shared); });

  const int bound = setup.sync->staleness_bound();
  models::BatchStream batches(setup.schedule, rank);
  models::Parameters parameters;
  models::Parameters gradient;
  if (rank == 0) after_iteration(context, 0, shared->parameters);
  for (std::int64_t clock = 1; clock <= setup.total_iterations; ++clock) {
    // A checkpoint holds the parameters averaged over every gradient pushed so far.
    before_iteration(context, clock, meter, rank, [&] { when(*shared, [&] { return shared->averaged >= clock - 1; }, [] {}); });
    std::int64_t version = 0;
    const double blocked_at = s4u::Engine::get_clock();
    when(*shared, [&] { return shared->averaged >= clock - 1 - bound; }, [&] {
      parameters = shared->parameters;
      version = shared->averaged;
    });
    context.observer->on_wait(meter.lane(), {blocked_at, s4u::Engine::get_clock()});
    context.observer->on_gradient_staleness(clock - 1 - version);
    compute_gradient(context, meter, rank, parameters, batches.next(), gradient);
    shared->gradients.push_back(gradient);
    shared->changed->notify_all();
  }
  // The worker's part of the job ends with its last average: a cluster's scheduler waits for the workers only.
  averaging->join();
}

}  // namespace dtsim::runtime
