#include "sim/runtime/pipeline_worker.hpp"

#include "models/pipeline_plan.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/runtime/s4u_transport.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <cmath>
#include <memory>
#include <string>

namespace dtsim::runtime {
namespace {

/// A transport among some of the workers (by rank), and what it reads while it lives.
class WorkerGroup {
 public:
  WorkerGroup(const TrainingContext& context, const std::string& name, std::vector<int> members, int position,
              const Meter& meter)
      : members_(std::move(members)),
        transport_(std::make_unique<S4uTransport>(name, position, static_cast<int>(members_.size()), meter)) {
    const std::span<const int> all = context.setup->graph.worker_machines();
    for (const int member : members_) machines_.push_back(all[static_cast<std::size_t>(member)]);
    transport_->set_hosts(members_);
    transport_->set_machines(machines_);
    transport_->set_traffic(context.traffic);
  }
  [[nodiscard]] S4uTransport& operator*() const { return *transport_; }
  [[nodiscard]] S4uTransport* operator->() const { return transport_.get(); }

 private:
  std::vector<int> members_;
  std::vector<int> machines_;
  std::unique_ptr<S4uTransport> transport_;
};

constexpr int kActivations = 1;
constexpr int kActivationGradients = 2;

}  // namespace

PipelineWorker::PipelineWorker(TrainingContext context, int rank) : context_(std::move(context)), rank_(rank) {}

void PipelineWorker::operator()() {
  const TrainingSetup& setup = *context_.setup;
  const scenario::Scenario& s = *context_.scenario;
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const int stages = plan.pipeline;
  const int replicas = plan.data;
  const int stage = rank_ % stages;
  const int replica = rank_ / stages;
  const auto first = setup.stage_layers[static_cast<std::size_t>(stage)];
  const auto last = setup.stage_layers[static_cast<std::size_t>(stage) + 1];
  const models::ModelProfile layers = models::stage_profile(*setup.profile, first, last);
  const Meter meter = context_.meter(rank_);

  // The replica's stages, one after the other, and the stage's replicas.
  std::vector<int> line_members;
  for (int other = 0; other < stages; ++other) line_members.push_back(replica * stages + other);
  std::vector<int> group_members;
  for (int other = 0; other < replicas; ++other) group_members.push_back(other * stages + stage);
  const WorkerGroup line(context_, "pipeline/" + std::to_string(replica), line_members, stage, meter);
  const WorkerGroup group(context_, "stage/" + std::to_string(stage), group_members, replica, meter);

  const scenario::DeviceProfile& device = s.cluster.device_of(rank_);
  const bool mixed = device.precision == "mixed";
  const auto microbatch = static_cast<std::size_t>(s.training.batch_per_worker / plan.microbatches);
  const double pass_flops =
      compute::roofline_flops(layers.training_flops() * static_cast<double>(microbatch),
                              layers.training_bytes(microbatch, mixed), device);
  const double forward_flops = pass_flops * layers.forward_flops() / layers.training_flops();
  const double backward_flops = pass_flops - forward_flops;
  // The layer tables give activations at 4 bytes a value; they travel at the activations' wire precision.
  const scenario::WirePrecision& wire = s.training.wire;
  const auto activation_message = [&](const models::LayerProfile& layer) {
    return wire_elements(layer.activation_bytes / 4.0 * static_cast<double>(microbatch), wire.activations, 1);
  };
  const std::size_t boundary = activation_message(layers.layers.back());
  const auto parameters = static_cast<std::size_t>(std::llround(layers.parameters()));
  const std::size_t count = wire_elements(layers.parameters(), wire.gradients, static_cast<std::size_t>(replicas));
  const std::unique_ptr<models::Optimizer> optimizer = make_optimizer(context_, 0);
  const std::vector<models::PipelinePass> passes = models::pipeline_passes(
      plan.schedule == "gpipe" ? models::PipelineSchedule::GPipe : models::PipelineSchedule::OneForwardOneBackward,
      stages, stage, plan.microbatches);

  for (std::int64_t iteration = 1; iteration <= setup.total_iterations; ++iteration) {
    const double factor = step_factor(context_, rank_);
    std::vector<std::unique_ptr<comm::Pending>> sent;
    for (const models::PipelinePass& pass : passes) {
      if (pass.forward) {
        if (stage > 0) static_cast<void>(line->post_recv(stage - 1, kActivations)->wait());
        charge_compute(meter, forward_flops * factor);
        if (stage + 1 < stages) sent.push_back(line->post_send(stage + 1, comm::Buffer::sized(boundary), kActivations));
      } else {
        if (stage + 1 < stages) static_cast<void>(line->post_recv(stage + 1, kActivationGradients)->wait());
        charge_compute(meter, backward_flops * factor);
        if (stage > 0) {
          // The gradient of this stage's input: as large as the previous stage's output.
          const std::size_t elements = activation_message(setup.profile->layers[first - 1]);
          sent.push_back(line->post_send(stage - 1, comm::Buffer::sized(elements), kActivationGradients));
        }
      }
    }
    for (const auto& pending : sent) static_cast<void>(pending->wait());
    if (replicas > 1) setup.allreduce->run(*group, comm::Block::sized(count));
    charge_compute(meter, optimizer->flops(parameters));
    if (rank_ == 0) context_.observer->on_update();
    if (rank_ == 0 && context_.progress) {
      context_.progress(Progress{iteration, setup.total_iterations, simgrid::s4u::Engine::get_clock()});
    }
  }
}

}  // namespace dtsim::runtime
