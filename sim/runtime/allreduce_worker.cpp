#include "sim/runtime/allreduce_worker.hpp"

#include "models/sgd.hpp"

namespace dtsim::runtime {

AllreduceWorker::AllreduceWorker(TrainingContext context, int rank) : context_(std::move(context)), rank_(rank) {}

void AllreduceWorker::operator()() {
  const TrainingSetup& setup = *context_.setup;
  metrics::HostActivity& activity = context_.record->hosts[static_cast<std::size_t>(rank_)];
  const int workers = context_.scenario->cluster.workers;
  S4uTransport transport("allreduce", rank_, workers, activity);
  transport.set_machines(setup.graph.worker_machines());
  const models::Sgd optimizer(context_.scenario->training.optimizer.learning_rate);
  models::BatchStream batches(setup.schedule, rank_);
  models::Parameters parameters = setup.model->initial_parameters();
  models::Parameters gradient;

  const int local_steps = setup.sync->local_steps();
  const auto count = static_cast<std::size_t>(parameters.size());
  if (rank_ == 0) after_iteration(context_, 0, parameters);
  for (std::int64_t iteration = 1; iteration <= setup.total_iterations; ++iteration) {
    compute_gradient(context_, activity, parameters, batches.next(), gradient);
    if (local_steps == 0) {
      // Gradient averaging: every step.
      setup.allreduce->run(transport, comm::Block(std::span<float>(gradient.data(), count)));
      gradient /= static_cast<float>(workers);
      optimizer.apply(parameters, gradient);
      charge_compute(activity, models::Sgd::flops(count));
    } else {
      // Local SGD: a local step, and every local_steps steps (and after the last) the models averaged.
      optimizer.apply(parameters, gradient);
      charge_compute(activity, models::Sgd::flops(count));
      if (iteration % local_steps == 0 || iteration == setup.total_iterations) {
        setup.allreduce->run(transport, comm::Block(std::span<float>(parameters.data(), count)));
        parameters /= static_cast<float>(workers);
        charge_compute(activity, static_cast<double>(count));
      }
    }
    if (rank_ == 0) after_iteration(context_, iteration, parameters);
  }
}

}  // namespace dtsim::runtime
