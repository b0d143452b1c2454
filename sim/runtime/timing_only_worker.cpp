#include "sim/runtime/timing_only_worker.hpp"

#include "sim/compute/device_cost_model.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <cmath>
#include <stdexcept>

namespace dtsim::runtime {

TimingOnlyWorker::TimingOnlyWorker(TrainingContext context, int rank) : context_(std::move(context)), rank_(rank) {}

void TimingOnlyWorker::operator()() {
  const TrainingSetup& setup = *context_.setup;
  if (!setup.profile || !setup.sync->lock_step() || setup.sync->gossip()) {
    throw std::logic_error("a timing-only worker needs a profile and bsp or local SGD");
  }
  const models::ModelProfile& profile = *setup.profile;
  const Meter meter = context_.meter(rank_);
  const int workers = context_.scenario->cluster.workers;
  S4uTransport transport("allreduce", rank_, workers, meter, context_.shortcut);
  transport.set_machines(setup.graph.worker_machines());
  transport.set_traffic(context_.traffic);
  // The optimizer's cost per parameter needs no state: it is made for none.
  const std::unique_ptr<models::Optimizer> optimizer = make_optimizer(context_, 0);
  const auto parameters = static_cast<std::size_t>(std::llround(profile.parameters()));
  // Messages are padded to a multiple of the workers (at most workers - 1 extra elements, as collective
  // libraries pad), so that every ring round moves equal chunks and identical rounds can be shortened.
  const auto ranks = static_cast<std::size_t>(workers);
  const std::size_t count = (parameters + ranks - 1) / ranks * ranks;
  const auto batch = static_cast<std::size_t>(context_.scenario->training.batch_per_worker);
  const scenario::DeviceProfile& device = context_.scenario->cluster.device_of(rank_);
  const double step_flops = compute::roofline_flops(profile.training_flops() * static_cast<double>(batch),
                                                    profile.training_bytes(batch, device.precision == "mixed"), device);
  const int local_steps = setup.sync->local_steps();
  for (std::int64_t iteration = 1; iteration <= setup.total_iterations; ++iteration) {
    charge_compute(meter, step_flops * step_factor(context_, rank_));
    if (local_steps == 0) {
      if (rank_ == 0) context_.observer->on_update();
      context_.observer->on_gradient_staleness(0);
      setup.allreduce->run(transport, comm::Block::sized(count));
      charge_compute(meter, optimizer->flops(parameters));
    } else {
      charge_compute(meter, optimizer->flops(parameters));
      if (iteration % local_steps == 0 || iteration == setup.total_iterations) {
        setup.allreduce->run(transport, comm::Block::sized(count));
        charge_compute(meter, static_cast<double>(parameters));
      }
    }
    if (rank_ == 0 && context_.progress) {
      context_.progress(Progress{iteration, setup.total_iterations, simgrid::s4u::Engine::get_clock()});
    }
  }
}

}  // namespace dtsim::runtime
