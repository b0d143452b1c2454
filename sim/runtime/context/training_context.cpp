#include "sim/runtime/context/training_context.hpp"

#include <cmath>
#include <numeric>

#include "sim/compute/device_cost_model.hpp"
#include "sim/runtime/context/job_pause.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

namespace dtsim::runtime {

void before_iteration(const TrainingContext& context, std::int64_t iteration, const Meter& meter, int rank,
                      const std::function<void()>& drain) {
  if (context.pause != nullptr) context.pause->at_iteration(iteration, meter, rank == 0, drain);
}

std::unique_ptr<models::Optimizer> make_optimizer(const TrainingContext& context, std::size_t size) {
  return context.setup->make_optimizer(size);
}

comm::Buffer to_buffer(const models::Parameters& values) {
  return comm::Buffer(std::vector<float>(values.data(), values.data() + values.size()));
}

double step_factor(const TrainingContext& context, int rank) {
  return context.step_slowdowns->at(static_cast<std::size_t>(rank)).next();
}

double compute_gradient(const TrainingContext& context, const Meter& meter, int rank,
                        const models::Parameters& parameters, std::span<const std::size_t> rows,
                        models::Parameters& gradient) {
  const models::TrainableModel& model = context.setup->model();
  const double work = model.training_flops_per_sample() * static_cast<double>(rows.size());
  const double flops = compute::roofline_flops(work, model.training_bytes(rows.size()), context.scenario->cluster.device_of(rank));
  const auto math = [&] { return model.loss_and_gradient(parameters, context.setup->data.train, rows, gradient); };
  if (context.pool == nullptr || work < kPooledFlops) {
    const double loss = math();
    charge_compute(meter, flops * step_factor(context, rank));
    return loss;
  }
  PooledTask<double> task(*context.pool, math);
  charge_compute(meter, flops * step_factor(context, rank));
  return task.get();
}

bool evaluation_due(const TrainingSetup& setup, std::int64_t iteration) {
  return iteration % setup.evaluate_every == 0 || iteration == setup.total_iterations;
}

namespace {

/// The training and validation evaluation of `parameters` after `iteration`; computed once per iteration for every
/// worker of a run that stops at a target.
std::pair<models::Evaluation, models::Evaluation> evaluation_of(const TrainingContext& context, std::int64_t iteration,
                                                                const models::Parameters& parameters) {
  const TrainingSetup& setup = *context.setup;
  TargetStop* shared = context.target_stop;
  if (shared != nullptr && shared->evaluated == iteration) return {shared->train, shared->validation};
  std::pair<models::Evaluation, models::Evaluation> out{setup.model().evaluate(parameters, setup.data.train),
                                                        setup.model().evaluate(parameters, setup.data.validation)};
  if (shared != nullptr) {
    shared->evaluated = iteration;
    shared->train = out.first;
    shared->validation = out.second;
  }
  return out;
}

/// The passes over the training set after `iteration`: the evaluator's iterations over an epoch's where every
/// worker is at the same step, else every worker's steps so far over all the workers' epochs.
double epoch_after(const TrainingContext& context, std::int64_t iteration) {
  const auto per_epoch = static_cast<double>(context.setup->schedule.iterations_per_epoch());
  if (context.worker_steps == nullptr) return static_cast<double>(iteration) / per_epoch;
  const std::vector<std::int64_t>& steps = *context.worker_steps;
  const std::int64_t seen = std::accumulate(steps.begin(), steps.end(), std::int64_t{0});
  return static_cast<double>(seen) / (static_cast<double>(steps.size()) * per_epoch);
}

bool reaches_target(const scenario::TrainingSpec& training, const models::Evaluation& validation) {
  return (training.stop_loss && validation.loss <= *training.stop_loss) ||
         (training.stop_accuracy && validation.accuracy >= *training.stop_accuracy);
}

/// A run whose workers do not move in lock step ends at the evaluator's first evaluation that reaches the target:
/// an actor of its own stops every other one (the evaluator too) where it next waits, at this same moment. None
/// leaves by an exception thrown from its own code, which unwinding off a SimGrid stack does not survive under
/// the sanitizers.
void end_run_at_target(const TrainingContext& context, std::int64_t iteration, const models::Parameters& parameters,
                       const models::Evaluation& validation) {
  TargetStop* stop = context.target_stop;
  if (stop == nullptr || stop->lock_step || iteration == 0 || !reaches_target(context.scenario->training, validation)) return;
  stop->stopped = iteration;
  // The last iteration's parameters are kept as final by after_iteration itself.
  if (iteration < context.setup->total_iterations) {
    context.observer->on_final_parameters(std::span<const float>(parameters.data(), static_cast<std::size_t>(parameters.size())));
  }
  simgrid::s4u::Actor::create("stop-at-target", simgrid::s4u::this_actor::get_host(), [] { simgrid::s4u::Actor::kill_all(); });
}

}  // namespace

bool target_reached(const TrainingContext& context, std::int64_t iteration, const models::Parameters& parameters,
                    bool records) {
  if (context.target_stop == nullptr || !context.target_stop->lock_step || !evaluation_due(*context.setup, iteration)) {
    return false;
  }
  const models::Evaluation validation = evaluation_of(context, iteration, parameters).second;
  const bool reached = reaches_target(context.scenario->training, validation);
  if (reached && records) {
    context.target_stop->stopped = iteration;
    if (iteration < context.setup->total_iterations) {
      context.observer->on_final_parameters(std::span<const float>(parameters.data(), static_cast<std::size_t>(parameters.size())));
    }
  }
  return reached;
}

void after_iteration(const TrainingContext& context, std::int64_t iteration, const models::Parameters& parameters) {
  const TrainingSetup& setup = *context.setup;
  const double now = simgrid::s4u::Engine::get_clock();
  if (evaluation_due(setup, iteration)) {
    const auto [train, validation] = evaluation_of(context, iteration, parameters);
    metrics::EvaluationRow row;
    row.sim_time_s = now;
    row.iteration = iteration;
    row.epoch = epoch_after(context, iteration);
    row.train_loss = train.loss;
    row.train_accuracy = train.accuracy;
    row.val_loss = validation.loss;
    row.val_accuracy = validation.accuracy;
    if (context.energy != nullptr) row.energy_j = context.energy->joules_now();
    context.observer->on_evaluation(row);
    end_run_at_target(context, iteration, parameters, validation);
  }
  if (iteration == setup.total_iterations) {
    context.observer->on_final_parameters(std::span<const float>(parameters.data(), static_cast<std::size_t>(parameters.size())));
  }
  if (context.progress && iteration > 0) context.progress(Progress{iteration, setup.total_iterations, now});
}

std::size_t wire_elements(double values, int bytes, std::size_t ranks) {
  return wire_elements_of_bits(values, 8 * bytes, ranks);
}

std::size_t wire_elements_of_bits(double values, int bits, std::size_t ranks) {
  const auto elements = static_cast<std::size_t>(std::ceil(std::llround(values) * static_cast<double>(bits) / 32.0));
  return (elements + ranks - 1) / ranks * ranks;
}

}  // namespace dtsim::runtime
