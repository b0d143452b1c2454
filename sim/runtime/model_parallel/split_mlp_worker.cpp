#include "sim/runtime/model_parallel/split_mlp_worker.hpp"

#include "models/dense_classifier.hpp"
#include "models/pipeline_plan.hpp"
#include "models/split_mlp.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/runtime/model_parallel/worker_group.hpp"
#include "sim/scenario/parallel_layout.hpp"

#include <fmt/format.h>

#include <deque>
#include <stdexcept>

namespace dtsim::runtime {
namespace {

constexpr int kActivations = 1;
constexpr int kActivationGradients = 2;

models::RowMatrix to_matrix(comm::Buffer buffer, std::size_t rows) {
  std::vector<float> values = buffer.take_values();
  const auto n = static_cast<Eigen::Index>(rows);
  const auto columns = static_cast<Eigen::Index>(values.size() / rows);
  return Eigen::Map<const models::RowMatrix>(values.data(), n, columns);
}

comm::Buffer to_buffer(const models::RowMatrix& m) {
  return comm::Buffer(std::vector<float>(m.data(), m.data() + m.size()));
}

/// Multiply-adds of a stage's share: forward 2 per weight per sample, backward twice that.
double stage_flops(const models::StageShare& share, std::size_t samples, bool forward) {
  return (forward ? 2.0 : 4.0) * static_cast<double>(share.parameter_count()) * static_cast<double>(samples);
}

/// A device's stage over one step of micro-batches of `size` samples: its forward and backward passes, with the
/// activations and their gradients exchanged with the stages beside it on its pipeline line.
struct SplitStageDevice {
  models::StageShare& share;  // keeps each micro-batch's forward values for its backward pass
  const models::StageShare::GroupSum& sum;
  S4uTransport& line;
  const Meter& meter;
  const scenario::DeviceProfile& device;
  const models::Dataset& train;
  int stage = 0;
  int stages = 1;
  double global_batch = 1.0;
  double factor = 1.0;
  std::size_t size = 0;

  /// The micro-batch `mine` forward: its activations sent on to the next stage (pending in `sent`), or at the
  /// last stage the gradient of its loss kept in `deltas` for its backward pass.
  void forward(const models::Parameters& local, std::span<const std::size_t> mine,
               std::deque<models::RowMatrix>& deltas, std::vector<std::unique_ptr<comm::Pending>>& sent) const {
    models::RowMatrix input;
    if (stage == 0) {
      const std::vector<Eigen::Index> index(mine.begin(), mine.end());
      input = train.features(index, Eigen::all);
    } else {
      input = to_matrix(line.post_recv(stage - 1, kActivations)->wait(), size);
    }
    charge_compute(meter, compute::roofline_flops(stage_flops(share, size, true), 0.0, device) * factor);
    models::RowMatrix output = share.forward(local, std::move(input), sum);
    if (stage + 1 < stages) {
      sent.push_back(line.post_send(stage + 1, to_buffer(output), kActivations));
    } else {
      std::vector<int> labels;
      for (const std::size_t row : mine) {
        labels.push_back(static_cast<int>(train.labels[static_cast<Eigen::Index>(row)]));
      }
      models::RowMatrix delta;
      static_cast<void>(models::softmax_cross_entropy(output, labels, global_batch, delta));
      deltas.push_back(std::move(delta));
    }
  }

  /// The oldest micro-batch in flight backward, from the next stage's activation gradients or at the last stage
  /// from `deltas`: adds the device's gradient to `gradient` and sends its input's gradient back (pending in
  /// `sent`).
  void backward(const models::Parameters& local, std::deque<models::RowMatrix>& deltas, models::Parameters& gradient,
                std::vector<std::unique_ptr<comm::Pending>>& sent) const {
    models::RowMatrix output_gradient;
    if (stage + 1 < stages) {
      output_gradient = to_matrix(line.post_recv(stage + 1, kActivationGradients)->wait(), size);
    } else {
      output_gradient = std::move(deltas.front());
      deltas.pop_front();
    }
    charge_compute(meter, compute::roofline_flops(stage_flops(share, size, false), 0.0, device) * factor);
    const models::RowMatrix back = share.backward(local, std::move(output_gradient), sum, gradient);
    if (stage > 0) sent.push_back(line.post_send(stage - 1, to_buffer(back), kActivationGradients));
  }
};

}  // namespace

SplitMlpWorker::SplitMlpWorker(TrainingContext context, int rank, std::shared_ptr<ShareAssembly> assembly)
    : context_(std::move(context)), rank_(rank), assembly_(std::move(assembly)) {}

void SplitMlpWorker::operator()() {
  const TrainingSetup& setup = *context_.setup;
  const scenario::Scenario& s = *context_.scenario;
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const auto* model = dynamic_cast<const models::DenseClassifier*>(&setup.model());
  if (model == nullptr) throw std::logic_error("a split run needs a dense classifier");
  const scenario::ParallelCoordinates at = scenario::coordinates_of(plan, rank_);
  const int stages = plan.pipeline;
  const int stage = at[scenario::ParallelAxis::Pipeline];
  const std::vector<std::size_t> first = models::split_layers(model->widths().size() - 1, stages);
  models::StageShare share(*model, first[static_cast<std::size_t>(stage)], first[static_cast<std::size_t>(stage) + 1],
                           plan.tensor, at[scenario::ParallelAxis::Tensor]);
  models::Parameters local = share.take(assembly_->whole);
  const std::unique_ptr<models::Optimizer> optimizer = make_optimizer(context_, share.parameter_count());
  const Meter meter = context_.meter(rank_);
  const ParallelGroups groups(context_, rank_, meter);
  const models::StageShare::GroupSum sum = [&](models::RowMatrix& m) {
    if (plan.tensor > 1) setup.collectives.allreduce().run(*groups.tensor, comm::Block(std::span<float>(m.data(), static_cast<std::size_t>(m.size()))));
  };
  models::BatchStream batches(setup.schedule, at[scenario::ParallelAxis::Data]);
  const int microbatches = plan.microbatches;
  const double global_batch = static_cast<double>(s.training.batch_per_worker) * plan.data;
  const std::vector<models::PipelinePass> passes = models::pipeline_passes(
      plan.schedule, stages, stage, microbatches);
  const models::Dataset& train = setup.data.train;
  if (rank_ == 0) after_iteration(context_, 0, assembly_->whole);

  for (std::int64_t iteration = 1; iteration <= setup.total_iterations; ++iteration) {
    before_iteration(context_, iteration, meter, rank_);
    const double factor = step_factor(context_, rank_);
    const std::span<const std::size_t> rows = batches.next();
    const std::size_t size = rows.size() / static_cast<std::size_t>(microbatches);
    const auto rows_of = [&](int m) { return rows.subspan(static_cast<std::size_t>(m) * size, size); };
    const SplitStageDevice device{share, sum, *groups.line, meter, s.cluster.device_of(rank_), train,
                                  stage, stages, global_batch, factor, size};
    models::Parameters gradient = models::Parameters::Zero(static_cast<Eigen::Index>(share.parameter_count()));
    std::deque<models::RowMatrix> deltas;  // the last stage's loss gradients, oldest micro-batch first
    std::vector<std::unique_ptr<comm::Pending>> sent;
    for (const models::PipelinePass& pass : passes) {
      if (pass.forward) {
        device.forward(local, rows_of(pass.microbatch), deltas, sent);
      } else {
        device.backward(local, deltas, gradient, sent);
      }
    }
    for (const auto& pending : sent) static_cast<void>(pending->wait());
    if (plan.data > 1) {
      setup.collectives.allreduce().run(*groups.replicas, comm::Block(std::span<float>(gradient.data(), static_cast<std::size_t>(gradient.size()))));
    }
    optimizer->apply(local, gradient);
    charge_compute(meter, optimizer->flops(share.parameter_count()));
    // Every device writes its share (replicas and a group's copies of a whole layer write the same values).
    share.put(local, assembly_->whole);
    finish_share(context_, *assembly_, iteration);
    if (rank_ == 0) context_.observer->on_update();
  }
}

}  // namespace dtsim::runtime
