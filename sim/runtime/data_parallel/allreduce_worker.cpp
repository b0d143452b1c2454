#include "sim/runtime/data_parallel/allreduce_worker.hpp"

#include "sim/runtime/data_parallel/stale_synchronous_allreduce.hpp"
#include "sim/runtime/model_parallel/fragment_exchange.hpp"
#include "sim/runtime/network/site_group.hpp"
#include "sim/runtime/recovery/elastic_group.hpp"
#include "sim/runtime/recovery/job_recovery.hpp"
#include "sim/sync/outer_step.hpp"

#include <functional>
#include <optional>

namespace dtsim::runtime {
namespace {

/// The lock-step actions on one worker's state, each given as the loop's own code.
struct WorkerActions final : sync::LockStepActions {
  std::function<void()> averaged_gradient;
  std::function<void()> own_gradient;
  std::function<void()> parameters;
  std::function<void(bool)> with_neighbours;
  std::function<void(const sync::OuterOptimizer&)> outer;
  std::function<void()> site_gradient;
  std::function<void(int)> send;
  std::function<void(int)> merge;

  void apply_averaged_gradient() override { averaged_gradient(); }
  void apply_own_gradient() override { own_gradient(); }
  void average_parameters() override { parameters(); }
  void gossip(bool with_all) override { with_neighbours(with_all); }
  void outer_step(const sync::OuterOptimizer& settings) override { outer(settings); }
  void apply_site_averaged_gradient() override { site_gradient(); }
  void send_fragment(int fragment) override { send(fragment); }
  void merge_fragment(int fragment) override { merge(fragment); }
};

/// DiLoCo's outer step on the whole model (sync/diloco.cpp): the global parameters a round starts from (a copy of
/// the model, kept only under DiLoCo) and the outer optimizer's momentum.
class WholeOuterStep {
 public:
  explicit WholeOuterStep(const models::Parameters& initial) : global_(initial) {}
  /// Averages the outer gradient (the global parameters less `parameters`) by `allreduce` over `group` of `size`
  /// workers, steps the global parameters with `outer`, and goes on from them.
  void take(const comm::CollectiveAlgorithm& allreduce, comm::Transport& group, float size,
            models::Parameters& parameters, const sync::OuterOptimizer& outer, const Meter& meter) {
    const auto count = static_cast<std::size_t>(parameters.size());
    models::Parameters outer_gradient = global_ - parameters;
    allreduce.run(group, comm::Block(std::span<float>(outer_gradient.data(), count)));
    outer_gradient /= size;
    const double flops = sync::apply_outer_step(std::span<float>(global_.data(), count), velocity_,
                                                std::span<const float>(outer_gradient.data(), count), outer);
    parameters = global_;
    charge_compute(meter, 2.0 * static_cast<double>(count) + flops);  // the difference, the mean and the step
  }

 private:
  models::Parameters global_;
  std::vector<float> velocity_;
};

}  // namespace

AllreduceWorker::AllreduceWorker(TrainingContext context, int rank) : context_(std::move(context)), rank_(rank) {}

void AllreduceWorker::operator()() {
  const TrainingSetup& setup = *context_.setup;
  if (!setup.sync->lock_step()) {
    run_stale_synchronous_allreduce(context_, rank_);
    return;
  }
  const Meter meter = context_.meter(rank_);
  const int workers = context_.scenario->cluster.workers;
  S4uTransport transport(context_.network,
                         {.name = "allreduce", .rank = rank_, .size = workers, .machines = setup.graph.worker_machines()},
                         meter);
  std::unique_ptr<models::Optimizer> optimizer = make_optimizer(context_, setup.model().parameter_count());
  models::BatchStream batches(setup.schedule, rank_);
  models::Parameters parameters = setup.model().initial_parameters();
  models::Parameters gradient;
  JobRecovery recovery(context_, rank_, WorkerState{&parameters, &optimizer, &batches});
  const auto count = static_cast<std::size_t>(parameters.size());
  // An elastic job allreduces among the workers still in it, and its lowest rank evaluates.
  std::optional<ElasticGroup> elastic;
  if (context_.failures->recovery == FailureRecovery::elastic) elastic.emplace(context_, rank_, meter);
  const auto group = [&]() -> S4uTransport& { return elastic ? elastic->transport() : transport; };
  const auto group_size = [&] { return static_cast<float>(elastic ? elastic->size() : workers); };
  const auto evaluates = [&] { return elastic ? elastic->evaluates() : rank_ == 0; };
  std::int64_t iteration = 1;
  WorkerActions actions;
  actions.averaged_gradient = [&] {
    // Every step, every gradient fresh.
    context_.observer->on_gradient_staleness(0);
    if (evaluates()) context_.observer->on_update();
    setup.collectives.allreduce().run(group(), comm::Block(std::span<float>(gradient.data(), count)));
    gradient /= group_size();
    optimizer->apply(parameters, gradient);
    charge_compute(meter, optimizer->flops(count));
  };
  actions.own_gradient = [&] {
    optimizer->apply(parameters, gradient);
    charge_compute(meter, optimizer->flops(count));
  };
  actions.parameters = [&] {
    setup.collectives.allreduce().run(group(), comm::Block(std::span<float>(parameters.data(), count)));
    parameters /= group_size();
    charge_compute(meter, static_cast<double>(count));
  };
  actions.with_neighbours = [&](bool with_all) { gossip(transport, iteration, parameters, with_all); };
  // Hierarchical DiLoCo: the worker's site averages its gradients every inner step.
  std::optional<SiteMembers> site;
  if (setup.sync->steps_with_its_site()) site.emplace(setup, context_.network, rank_, meter);
  actions.site_gradient = [&] {
    context_.observer->on_gradient_staleness(0);
    setup.collectives.allreduce().run(site->transport, comm::Block(std::span<float>(gradient.data(), count)));
    gradient /= static_cast<float>(site->group.ranks.size());
    optimizer->apply(parameters, gradient);
    charge_compute(meter, optimizer->flops(count));
  };
  // DiLoCo's outer step on the whole model; Streaming DiLoCo's fragment by fragment, beside the inner steps.
  std::optional<WholeOuterStep> whole;
  if (setup.sync->outer_optimizer() != nullptr && setup.sync->streaming() == nullptr) whole.emplace(parameters);
  actions.outer = [&](const sync::OuterOptimizer& outer) {
    whole->take(setup.collectives.allreduce(), group(), group_size(), parameters, outer, meter);
  };
  std::optional<FragmentExchange> fragments;
  if (setup.sync->streaming() != nullptr) {
    fragments.emplace(context_, rank_, meter, transport, count, 4).start_from({parameters.data(), count});
  }
  actions.send = [&](int fragment) { fragments->send(fragment, std::span<const float>(parameters.data(), count)); };
  actions.merge = [&](int fragment) { fragments->merge(fragment, std::span<float>(parameters.data(), count)); };
  if (rank_ == 0) after_iteration(context_, 0, parameters);
  for (; iteration <= setup.total_iterations; ++iteration) {
    before_iteration(context_, iteration, meter, rank_);
    compute_gradient(context_, meter, rank_, parameters, batches.next(), gradient);
    setup.sync->after_gradient(iteration, setup.total_iterations, actions);
    if (const std::int64_t resumed = recovery.end_of_iteration(iteration); resumed != iteration) {
      iteration = resumed;  // rolled back: the loop goes on from the checkpoint's next iteration
      continue;
    }
    if (elastic && !elastic->end_of_iteration(iteration)) return;  // failed: the others go on without it
    if (evaluates()) after_iteration(context_, iteration, parameters);
    if (target_reached(context_, iteration, parameters, evaluates())) return;  // every replica stops here alike
  }
}

void AllreduceWorker::gossip(comm::Transport& transport, std::int64_t round, models::Parameters& parameters,
                             bool with_all) {
  GossipPeers& peers_of = *context_.gossip;
  const Meter meter = context_.meter(rank_);
  const auto count = static_cast<std::size_t>(parameters.size());
  const auto own = [&] { return comm::Buffer(std::vector<float>(parameters.data(), parameters.data() + count)); };
  const auto as_map = [&](const comm::Buffer& b) {
    return Eigen::Map<const models::Parameters>(b.values().data(), static_cast<Eigen::Index>(count));
  };
  if (with_all) {
    const std::vector<int>& peers = peers_of.neighbours_of(rank_);
    const std::vector<comm::Buffer> theirs = transport.exchange(peers, std::vector<comm::Buffer>(peers.size(), own()), peers);
    // Summed from zero in rank order, own parameters in their place, so that a complete graph gives every
    // worker bitwise the same mean.
    models::Parameters sum = models::Parameters::Zero(static_cast<Eigen::Index>(count));
    bool own_added = false;
    for (std::size_t i = 0; i < peers.size(); ++i) {
      if (!own_added && peers[i] > rank_) {
        sum += parameters;
        own_added = true;
      }
      sum += as_map(theirs[i]);
    }
    if (!own_added) sum += parameters;
    parameters = sum / static_cast<float>(peers.size() + 1);
    charge_compute(meter, static_cast<double>(count * (peers.size() + 1)));
    return;
  }
  const int partner = peers_of.partner(rank_, round);
  if (partner < 0) return;
  const comm::Buffer theirs = transport.send_recv(partner, own(), partner);
  // a + b is b + a in floating point: both partners end with the same values.
  parameters = (parameters + as_map(theirs)) * 0.5F;
  charge_compute(meter, 2.0 * static_cast<double>(count));
}

}  // namespace dtsim::runtime
