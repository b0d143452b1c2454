#include "sim/runtime/model_parallel/mixture_worker.hpp"

#include "models/moe_classifier.hpp"
#include "sim/comm/all_to_all.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/runtime/model_parallel/token_exchange.hpp"
#include "sim/runtime/model_parallel/worker_group.hpp"
#include "sim/runtime/observe/compute_spans.hpp"
#include "sim/scenario/parallel_layout.hpp"

#include <numeric>
#include <stdexcept>

namespace dtsim::runtime {
namespace {

using models::RowMatrix;

/// A device's share of the whole model's parameters: the trunk and the gate, then experts [first, first +
/// count), each a contiguous block of the whole.
struct MixtureShare {
  const models::MixtureShape* shape = nullptr;
  std::size_t first = 0;
  std::size_t count = 0;

  [[nodiscard]] std::size_t dense() const { return shape->dense_parameters(); }
  [[nodiscard]] std::size_t experts() const { return count * shape->expert_parameters(); }
  [[nodiscard]] std::size_t size() const { return dense() + experts(); }
  [[nodiscard]] Eigen::Index whole_experts() const { return static_cast<Eigen::Index>(shape->expert_offset(first)); }

  [[nodiscard]] models::Parameters take(const models::Parameters& whole) const {
    models::Parameters out(static_cast<Eigen::Index>(size()));
    out.head(static_cast<Eigen::Index>(dense())) = whole.head(static_cast<Eigen::Index>(dense()));
    out.tail(static_cast<Eigen::Index>(experts())) = whole.segment(whole_experts(), static_cast<Eigen::Index>(experts()));
    return out;
  }
  void put(const models::Parameters& local, models::Parameters& whole) const {
    whole.head(static_cast<Eigen::Index>(dense())) = local.head(static_cast<Eigen::Index>(dense()));
    whole.segment(whole_experts(), static_cast<Eigen::Index>(experts())) = local.tail(static_cast<Eigen::Index>(experts()));
  }
  template <typename Values>
  [[nodiscard]] auto dense_of(Values& values) const {
    return std::span(values.data(), dense());
  }
  /// Local expert `l`'s block of `values` (the device's parameters or its gradient).
  template <typename Values>
  [[nodiscard]] auto expert_of(Values& values, std::size_t l) const {
    return std::span(values.data() + dense() + l * shape->expert_parameters(), shape->expert_parameters());
  }
};

/// One micro-batch's forward and backward passes on one device of an expert group, with the four all-to-alls
/// of its tokens.
struct ExpertDevice {
  const MixtureShare& share;
  comm::Transport& group;
  const Meter& meter;
  const scenario::DeviceProfile& device;
  double factor = 1.0;

  void charge(double flops) const { charge_compute(meter, compute::roofline_flops(flops, 0.0, device) * factor); }
  std::vector<comm::Buffer> all_to_all(std::vector<comm::Buffer> pieces) const {
    return comm::direct_all_to_all_values(group, std::move(pieces));
  }

  /// Adds the device's gradient for `inputs` and their `labels` (divided by `divisor`, the global batch) to
  /// `gradient`; returns the slots the group sent each of its experts.
  std::vector<std::size_t> run(const models::Parameters& local, RowMatrix inputs, std::span<const int> labels,
                               double divisor, models::Parameters& gradient) const {
    const models::MixtureShape& s = *share.shape;
    const auto n = static_cast<double>(inputs.rows());
    const models::FrontPass front = models::front_forward(s, share.dense_of(local), std::move(inputs));
    charge(s.front_flops(true) * n);
    const models::Routing& routing = front.routing;
    const SlotsByDevice by_device = slots_by_device(routing, share.count, group.size());
    std::vector<Eigen::Index> token_of;
    for (std::size_t t = 0; t < routing.slots(); ++t) token_of.push_back(static_cast<Eigen::Index>(t / routing.top_k));
    const Arrivals arrivals = read_tokens(
        all_to_all(slot_messages(front.hidden(token_of, Eigen::all), routing, by_device, share.count)), share.count, s.width);
    std::vector<std::size_t> loads;
    std::vector<models::ExpertPass> passes;
    std::vector<RowMatrix> outputs;
    for (std::size_t l = 0; l < share.count; ++l) {
      passes.push_back(models::expert_forward(s, share.expert_of(local, l), arrivals.tokens[l]));
      outputs.push_back(passes.back().output);
      loads.push_back(static_cast<std::size_t>(arrivals.tokens[l].rows()));
    }
    const auto tokens = static_cast<double>(std::accumulate(loads.begin(), loads.end(), std::size_t{0}));
    charge(s.expert_flops(true) * tokens);
    const RowMatrix slot_outputs = in_slot_order(all_to_all(replies(arrivals, outputs)), by_device, routing.slots(), s.classes);
    RowMatrix delta;
    static_cast<void>(models::softmax_cross_entropy(models::combine(routing, slot_outputs), labels, divisor, delta));
    const std::vector<RowMatrix> output_gradients = rows_by_expert(
        arrivals, all_to_all(slot_messages(models::slot_output_gradients(routing, delta), routing, by_device)), s.classes);
    std::vector<RowMatrix> token_gradients;
    for (std::size_t l = 0; l < share.count; ++l) {
      token_gradients.push_back(models::expert_backward(s, share.expert_of(local, l), passes[l], output_gradients[l],
                                                        share.expert_of(gradient, l)));
    }
    charge(s.expert_flops(false) * tokens);
    const RowMatrix slot_input_gradients =
        in_slot_order(all_to_all(replies(arrivals, token_gradients)), by_device, routing.slots(), s.width);
    models::front_backward(s, share.dense_of(local), front, delta, slot_outputs, slot_input_gradients,
                           share.dense_of(gradient));
    charge((s.front_flops(false) + 5.0 * static_cast<double>(s.classes)) * n);
    return loads;
  }
};

}  // namespace

MixtureWorker::MixtureWorker(TrainingContext context, int rank, std::shared_ptr<ShareAssembly> assembly)
    : context_(std::move(context)), rank_(rank), assembly_(std::move(assembly)) {}

void MixtureWorker::operator()() {
  const TrainingSetup& setup = *context_.setup;
  const scenario::Scenario& s = *context_.scenario;
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const auto* model = dynamic_cast<const models::MoeClassifier*>(&setup.model());
  if (model == nullptr) throw std::logic_error("an expert-parallel run trained for real needs a mixture of experts");
  const scenario::ParallelCoordinates at = scenario::coordinates_of(plan, rank_);
  const std::size_t per_device = model->shape().experts / static_cast<std::size_t>(plan.expert);
  const MixtureShare share{&model->shape(), static_cast<std::size_t>(at[scenario::ParallelAxis::Expert]) * per_device, per_device};
  models::Parameters local = share.take(assembly_->whole);
  const std::unique_ptr<models::Optimizer> optimizer = make_optimizer(context_, share.size());
  const Meter meter = context_.meter(rank_);
  const ParallelGroups groups(context_, rank_, meter);
  models::BatchStream batches(setup.schedule, scenario::replica_index(plan, at));
  const double global_batch = static_cast<double>(s.training.batch_per_worker) * plan.data;
  const models::Dataset& train = setup.data.train;
  const comm::CollectiveAlgorithm& allreduce = setup.collectives.allreduce();
  if (!assembly_->gate_loads) assembly_->gate_loads.emplace(model->shape().experts, plan.expert);
  if (rank_ == 0) after_iteration(context_, 0, assembly_->whole);

  for (std::int64_t iteration = 1; iteration <= setup.total_iterations; ++iteration) {
    before_iteration(context_, iteration, meter, rank_);
    const ExpertDevice device{share, **groups.experts, meter, s.cluster.device_of(rank_), step_factor(context_, rank_)};
    const std::span<const std::size_t> rows = batches.next();
    const std::size_t size = rows.size() / static_cast<std::size_t>(plan.microbatches);
    models::Parameters gradient = models::Parameters::Zero(static_cast<Eigen::Index>(share.size()));
    for (int m = 0; m < plan.microbatches; ++m) {
      const std::span<const std::size_t> mine = rows.subspan(static_cast<std::size_t>(m) * size, size);
      const std::vector<Eigen::Index> index(mine.begin(), mine.end());
      std::vector<int> labels;
      for (const std::size_t row : mine) labels.push_back(static_cast<int>(train.labels[static_cast<Eigen::Index>(row)]));
      const std::vector<std::size_t> loads = device.run(local, train.features(index, Eigen::all), labels, global_batch, gradient);
      assembly_->gate_loads->add(iteration, m, at[scenario::ParallelAxis::Data], at[scenario::ParallelAxis::Expert],
                                 share.first, loads);
    }
    // The trunk's and the gate's gradients over every replica, the experts' over those holding the same experts.
    if (plan.data > 1) allreduce.run(*groups.replicas, comm::Block(share.dense_of(gradient)));
    if (plan.data > plan.expert) {
      allreduce.run(**groups.expert_replicas,
                    comm::Block(std::span(gradient.data() + share.dense(), share.experts())));
    }
    optimizer->apply(local, gradient);
    charge_compute(meter, optimizer->flops(share.size()));
    share.put(local, assembly_->whole);
    finish_share(context_, *assembly_, iteration);
    if (rank_ == 0) context_.observer->on_update();
  }
}

}  // namespace dtsim::runtime
