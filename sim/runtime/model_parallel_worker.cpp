#include "sim/runtime/model_parallel_worker.hpp"

#include "models/device_share.hpp"
#include "models/pipeline_plan.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/runtime/s4u_transport.hpp"
#include "sim/scenario/parallel_layout.hpp"

#include <fmt/format.h>
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

/// One micro-batch's forward or backward pass through a device's layers: compute charged in runs between
/// the tensor group's sums (Megatron-LM's f and g operators).
class LayerPasses {
 public:
  LayerPasses(const TrainingContext& context, const models::ModelProfile& layers, const Meter& meter,
              S4uTransport& tensor, double flops_scale, std::size_t microbatch)
      : context_(context), layers_(layers), meter_(meter), tensor_(tensor), scale_(flops_scale),
        microbatch_(microbatch) {}

  void forward(double factor) {
    for (const models::LayerProfile& layer : layers_.layers) {
      if (sequence_parallel() && layer.tensor == models::TensorSplit::Column) gather(layer, factor);
      pending_ += layer.forward_flops;
      if (split() && layer.tensor == models::TensorSplit::Row) reduce(layer, factor);
    }
    flush(factor);
  }
  void backward(double factor) {
    for (auto layer = layers_.layers.rbegin(); layer != layers_.layers.rend(); ++layer) {
      if (sequence_parallel() && layer->tensor == models::TensorSplit::Row) gather(*layer, factor);
      pending_ += layer->backward_flops;
      if (split() && layer->tensor == models::TensorSplit::Column) reduce(*layer, factor);
    }
    flush(factor);
  }

 private:
  [[nodiscard]] bool split() const { return tensor_.size() > 1; }
  [[nodiscard]] bool sequence_parallel() const { return split() && context_.scenario->training.parallelism.sequence_parallel; }
  [[nodiscard]] comm::Block message(const models::LayerProfile& layer) const {
    const std::size_t elements =
        wire_elements(layer.tensor_sum_elements * static_cast<double>(microbatch_),
                      context_.scenario->training.wire.activations, static_cast<std::size_t>(tensor_.size()));
    return comm::Block::sized(elements);
  }
  void flush(double factor) {
    if (pending_ > 0.0) charge_compute(meter_, pending_ * scale_ * factor);
    pending_ = 0.0;
  }
  /// The group's sum of the hidden state: an allreduce, or a reduce-scatter by tokens under sequence
  /// parallelism.
  void reduce(const models::LayerProfile& layer, double factor) {
    flush(factor);
    const TrainingSetup& setup = *context_.setup;
    (sequence_parallel() ? setup.reduce_scatter : setup.allreduce)->run(tensor_, message(layer));
  }
  /// Sequence parallelism: the tokens split over the group gathered before a split layer.
  void gather(const models::LayerProfile& layer, double factor) {
    flush(factor);
    context_.setup->allgather->run(tensor_, message(layer));
  }

  const TrainingContext& context_;
  const models::ModelProfile& layers_;
  const Meter& meter_;
  S4uTransport& tensor_;
  double scale_;
  std::size_t microbatch_;
  double pending_ = 0.0;  ///< table FLOPs not charged yet
};

}  // namespace

ModelParallelWorker::ModelParallelWorker(TrainingContext context, int rank) : context_(std::move(context)), rank_(rank) {}

void ModelParallelWorker::operator()() {
  const TrainingSetup& setup = *context_.setup;
  const scenario::Scenario& s = *context_.scenario;
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const scenario::ParallelCoordinates at = scenario::coordinates_of(plan, rank_);
  const int stages = plan.pipeline;
  const int stage = at.pipeline;
  const int replicas = plan.data;
  const auto first = setup.stage_layers[static_cast<std::size_t>(stage)];
  const auto last = setup.stage_layers[static_cast<std::size_t>(stage) + 1];
  const models::ModelProfile whole = models::stage_profile(*setup.profile, first, last);
  const models::ModelProfile layers = models::device_share(whole, scenario::device_share_of(s.training));
  const Meter meter = context_.meter(rank_);

  using scenario::ParallelAxis;
  const WorkerGroup line(context_, fmt::format("pipeline/{}/{}", at.data, at.tensor),
                         scenario::group_along(plan, rank_, ParallelAxis::Pipeline), stage, meter);
  const WorkerGroup group(context_, fmt::format("replicas/{}/{}", stage, at.tensor),
                          scenario::group_along(plan, rank_, ParallelAxis::Data), at.data, meter);
  const WorkerGroup tensor(context_, fmt::format("tensor/{}/{}", at.data, stage),
                           scenario::group_along(plan, rank_, ParallelAxis::Tensor), at.tensor, meter);

  const scenario::DeviceProfile& device = s.cluster.device_of(rank_);
  const bool mixed = device.precision == "mixed";
  const auto microbatch = static_cast<std::size_t>(s.training.batch_per_worker / plan.microbatches);
  const double pass_flops =
      compute::roofline_flops(layers.training_flops() * static_cast<double>(microbatch),
                              layers.training_bytes(microbatch, mixed), device);
  LayerPasses passes_through(context_, layers, meter, *tensor, pass_flops / layers.training_flops(), microbatch);
  // The layer tables give activations at 4 bytes a value; they travel at the activations' wire precision,
  // split by tokens over the tensor group under sequence parallelism.
  const scenario::WirePrecision& wire = s.training.wire;
  const double token_split = plan.sequence_parallel ? plan.tensor : 1.0;
  const auto activation_message = [&](const models::LayerProfile& layer) {
    return wire_elements(layer.activation_bytes / 4.0 * static_cast<double>(microbatch) / token_split,
                         wire.activations, 1);
  };
  const std::size_t boundary = activation_message(whole.layers.back());
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
        passes_through.forward(factor);
        if (stage + 1 < stages) sent.push_back(line->post_send(stage + 1, comm::Buffer::sized(boundary), kActivations));
      } else {
        if (stage + 1 < stages) static_cast<void>(line->post_recv(stage + 1, kActivationGradients)->wait());
        passes_through.backward(factor);
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
