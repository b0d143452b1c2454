#include "sim/runtime/data_parallel/parameter_server_actors.hpp"

#include "sim/comm/parameter_server_protocol.hpp"
#include "sim/metrics/failure_schedule.hpp"
#include "sim/runtime/data_parallel/server_shard.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <numeric>

namespace dtsim::runtime {

namespace {

/// A worker's own parameters and what it holds since its last push, and the steps the strategy may take
/// with its gradient.
class WorkerPushes final : public sync::PushActions {
 public:
  WorkerPushes(const TrainingContext& context, int rank, const Meter& meter, S4uTransport& transport,
               std::span<const int> servers, models::Parameters& parameters, const models::Parameters& gradient)
      : context_(context), rank_(rank), meter_(meter), transport_(transport), servers_(servers), parameters_(parameters),
        gradient_(gradient), optimizer_(make_optimizer(context, static_cast<std::size_t>(parameters.size()))),
        held_(models::Parameters::Zero(parameters.size())),
        learning_rate_(context.scenario->training.optimizer.learning_rate) {}

  void push_gradient() override {
    const comm::Buffer pulled = comm::push_and_pull(transport_, servers_, to_buffer(gradient_));
    parameters_ = Eigen::Map<const models::Parameters>(pulled.values().data(), static_cast<Eigen::Index>(pulled.size()));
  }

  sync::Held step_locally() override {
    optimizer_->apply(parameters_, gradient_);
    held_ += gradient_;
    ++steps_;
    charge_compute(meter_, optimizer_->flops(static_cast<std::size_t>(parameters_.size())) +
                               static_cast<double>(parameters_.size()));
    const double norm = parameters_.norm();
    relative_ = learning_rate_ * held_.norm() / (norm > 0.0 ? norm : 1.0);
    return {relative_, steps_};
  }

  void push_held(bool forced) override {
    context_.observer->on_push(rank_, relative_, steps_, forced);
    const std::span<float> own(parameters_.data(), static_cast<std::size_t>(parameters_.size()));
    const sync::SyncStrategy& strategy = *context_.setup->sync;
    strategy.on_push(own, std::span<float>(held_.data(), static_cast<std::size_t>(held_.size())));
    const comm::Buffer pulled = comm::push_and_pull(transport_, servers_, to_buffer(held_), steps_);
    strategy.on_pull(own, pulled.values(), learning_rate_);
    forget();
  }

  /// Drops what is held (the worker died and computes again from its parameters).
  void forget() {
    held_.setZero();
    steps_ = 0;
  }
  /// Steps held since the last push.
  [[nodiscard]] std::int64_t steps() const { return steps_; }

 private:
  const TrainingContext& context_;
  int rank_;
  const Meter& meter_;
  S4uTransport& transport_;
  std::span<const int> servers_;
  models::Parameters& parameters_;
  const models::Parameters& gradient_;
  std::unique_ptr<models::Optimizer> optimizer_;
  models::Parameters held_;
  std::int64_t steps_ = 0;
  double relative_ = 0.0;
  double learning_rate_;
};

}  // namespace

ParameterServerWorker::ParameterServerWorker(TrainingContext context, int rank)
    : context_(std::move(context)), rank_(rank) {}

void ParameterServerWorker::operator()() {
  const TrainingSetup& setup = *context_.setup;
  const Meter meter = context_.meter(rank_);
  const int workers = context_.scenario->cluster.workers;
  const int shards = context_.scenario->training.shards;
  S4uTransport transport(context_.network, {.name = kParameterServerGroup, .rank = rank_, .size = workers + shards},
                         meter);
  std::vector<int> servers(static_cast<std::size_t>(shards));
  std::iota(servers.begin(), servers.end(), workers);
  models::BatchStream batches(setup.schedule, rank_);
  models::Parameters parameters = setup.model().initial_parameters();
  models::Parameters gradient;
  WorkerPushes pushes(context_, rank_, meter, transport, servers, parameters, gradient);

  // This worker's failures: it dies during a step, and comes back after its repair to compute that step
  // again, or leaves for good (the servers go on without it).
  std::optional<metrics::FailureSchedule> failures;
  if (context_.scenario->failures.enabled) failures.emplace(context_.scenario->failures, workers, context_.scenario->seed, rank_);

  if (rank_ == 0) after_iteration(context_, 0, parameters);
  for (std::int64_t iteration = 1; iteration <= setup.total_iterations; ++iteration) {
    const double step_started = simgrid::s4u::Engine::get_clock();
    compute_gradient(context_, meter, rank_, parameters, batches.next(), gradient);
    if (failures) {
      if (const std::optional<metrics::Failure> failure = failures->take_due(simgrid::s4u::Engine::get_clock())) {
        const double now = simgrid::s4u::Engine::get_clock();
        metrics::FailureRecord record{rank_, failure->at_s, now, 1 + pushes.steps(), now - step_started, 0.0, !failure->repair_s};
        if (!failure->repair_s) {
          context_.observer->on_failure(record);
          comm::leave(transport, servers);
          return;
        }
        record.downtime_s = context_.scenario->failures.detection_s + *failure->repair_s + context_.scenario->failures.restart_s;
        context_.observer->on_failure(record);
        simgrid::s4u::this_actor::sleep_for(record.downtime_s);
        pushes.forget();
        --iteration;  // the step it died in, computed again
        continue;
      }
    }
    setup.sync->after_gradient_with_servers(iteration, setup.total_iterations, pushes);
    if (context_.worker_steps != nullptr) ++context_.worker_steps->at(static_cast<std::size_t>(rank_));
    if (rank_ == 0) after_iteration(context_, iteration, parameters);
  }
}

ParameterServer::ParameterServer(TrainingContext context, int shard) : context_(std::move(context)), shard_(shard) {}

void ParameterServer::operator()() { ServerShard(context_, shard_).serve(); }

}  // namespace dtsim::runtime
