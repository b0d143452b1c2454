#include "sim/runtime/parameter_server_actors.hpp"

#include "sim/comm/parameter_server_protocol.hpp"
#include "sim/runtime/failure_schedule.hpp"
#include "sim/runtime/server_shard.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <numeric>

namespace dtsim::runtime {

ParameterServerWorker::ParameterServerWorker(TrainingContext context, int rank)
    : context_(std::move(context)), rank_(rank) {}

void ParameterServerWorker::operator()() {
  const TrainingSetup& setup = *context_.setup;
  const Meter meter = context_.meter(rank_);
  const int workers = context_.scenario->cluster.workers;
  const int shards = context_.scenario->training.shards;
  S4uTransport transport(kParameterServerGroup, rank_, workers + shards, meter);
  transport.set_traffic(context_.traffic);
  std::vector<int> servers(static_cast<std::size_t>(shards));
  std::iota(servers.begin(), servers.end(), workers);
  models::BatchStream batches(setup.schedule, rank_);
  models::Parameters parameters = setup.model->initial_parameters();
  models::Parameters gradient;

  const sync::SyncStrategy& strategy = *setup.sync;
  const std::unique_ptr<models::Optimizer> optimizer = make_optimizer(context_, setup.model->parameter_count());
  models::Parameters accumulated = models::Parameters::Zero(parameters.size());
  std::int64_t held = 0;  // steps accumulated since the last push

  // This worker's failures: it dies during a step, and comes back after its repair to compute that step
  // again, or leaves for good (the servers go on without it).
  std::optional<FailureSchedule> failures;
  if (context_.scenario->failures.enabled) failures.emplace(context_.scenario->failures, workers, context_.scenario->seed, rank_);

  if (rank_ == 0) after_iteration(context_, 0, parameters);
  for (std::int64_t iteration = 1; iteration <= setup.total_iterations; ++iteration) {
    const double step_started = simgrid::s4u::Engine::get_clock();
    compute_gradient(context_, meter, rank_, parameters, batches.next(), gradient);
    if (failures) {
      if (const std::optional<Failure> failure = failures->take_due(simgrid::s4u::Engine::get_clock())) {
        const double now = simgrid::s4u::Engine::get_clock();
        metrics::FailureRecord record{rank_, failure->at_s, now, 1 + held, now - step_started, 0.0, !failure->repair_s};
        if (!failure->repair_s) {
          context_.observer->on_failure(record);
          comm::leave(transport, servers);
          return;
        }
        record.downtime_s = *failure->repair_s + context_.scenario->failures.restart_s;
        context_.observer->on_failure(record);
        simgrid::s4u::this_actor::sleep_for(record.downtime_s);
        accumulated.setZero();
        held = 0;
        --iteration;  // the step it died in, computed again
        continue;
      }
    }
    if (!strategy.accumulates_locally()) {
      const comm::Buffer pulled = comm::push_and_pull(transport, servers, to_buffer(gradient));
      parameters = Eigen::Map<const models::Parameters>(pulled.values().data(), static_cast<Eigen::Index>(pulled.size()));
    } else {
      // Approximate: step locally, and push the accumulated gradients only when they make a significant
      // update (or have waited long enough, or training ends).
      optimizer->apply(parameters, gradient);
      accumulated += gradient;
      ++held;
      charge_compute(meter, optimizer->flops(static_cast<std::size_t>(parameters.size())) +
                                   static_cast<double>(parameters.size()));
      const double norm = parameters.norm();
      const double relative =
          context_.scenario->training.optimizer.learning_rate * accumulated.norm() / (norm > 0.0 ? norm : 1.0);
      const bool last = iteration == setup.total_iterations;
      const bool significant = strategy.send_now(relative, held);
      if (significant || last) {
        context_.observer->on_push(rank_, relative, held, last && !significant);
        const std::span<float> own(parameters.data(), static_cast<std::size_t>(parameters.size()));
        strategy.on_push(own, std::span<float>(accumulated.data(), static_cast<std::size_t>(accumulated.size())));
        const comm::Buffer pulled = comm::push_and_pull(transport, servers, to_buffer(accumulated), held);
        strategy.on_pull(own, pulled.values(), context_.scenario->training.optimizer.learning_rate);
        accumulated.setZero();
        held = 0;
      }
    }
    if (rank_ == 0) after_iteration(context_, iteration, parameters);
  }
}

ParameterServer::ParameterServer(TrainingContext context, int shard) : context_(std::move(context)), shard_(shard) {}

void ParameterServer::operator()() { ServerShard(context_, shard_).serve(); }

}  // namespace dtsim::runtime
