#include "sim/runtime/model_parallel/timing_only_worker.hpp"

#include "models/gradient_buckets.hpp"
#include "sim/runtime/model_parallel/fragment_exchange.hpp"
#include "sim/runtime/model_parallel/gradient_stream.hpp"
#include "sim/runtime/model_parallel/parameter_gathers.hpp"
#include "sim/runtime/model_parallel/worker_group.hpp"
#include "sim/runtime/network/site_group.hpp"
#include "sim/sync/outer_step.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <cmath>
#include <optional>
#include <stdexcept>

namespace dtsim::runtime {
namespace {

/// The lock-step actions as time only: the allreduce of `count` elements and the FLOPs of each step.
class TimedSteps final : public sync::LockStepActions {
 public:
  TimedSteps(const TrainingContext& context, const Meter& meter, S4uTransport& transport, std::size_t gradients,
             std::size_t weights, std::size_t parameters, const models::Optimizer& optimizer)
      : context_(context), meter_(meter), transport_(transport), gradients_(gradients), weights_(weights),
        parameters_(parameters), optimizer_(optimizer) {}

  /// Hierarchical DiLoCo: `site` is the worker's site's group, its gradients `elements` on the wire.
  void with_site(S4uTransport* site, std::size_t elements) {
    site_ = site;
    site_gradients_ = elements;
  }

  /// Overlapped runs: the gradients are already on their way, bucket by bucket.
  void overlap_with(GradientStream* stream) { stream_ = stream; }
  /// The updated parameters are gathered during the next forward pass instead of after the step.
  void gather_during_forward() { gather_after_step_ = false; }

  void apply_averaged_gradient() override {
    if (transport_.rank() == 0) context_.observer->on_update();
    context_.observer->on_gradient_staleness(0);
    const TrainingSetup& setup = *context_.setup;
    if (stream_ != nullptr) {
      // The buckets were allreduced (or, under ZeRO, reduce-scattered) during the backward pass.
      stream_->wait_for_all(meter_);
      if (setup.zero_stage == 0) {
        charge_compute(meter_, optimizer_.flops(parameters_));
        return;
      }
      const auto ranks = static_cast<std::size_t>(transport_.size());
      charge_compute(meter_, optimizer_.flops((parameters_ + ranks - 1) / ranks));
      if (setup.zero_stage < 3 && gather_after_step_) gather_parameters(setup, transport_, weights_);
      return;
    }
    if (setup.zero_stage == 0) {
      setup.collectives.allreduce().run(transport_, comm::Block::sized(gradients_));
      charge_compute(meter_, optimizer_.flops(parameters_));
      return;
    }
    // ZeRO: each worker sums and updates its own chunk of the parameters; stages 1 and 2 then gather the
    // updated chunks, stage 3 gathers each layer when it is next needed.
    setup.collectives.reduce_scatter().run(transport_, comm::Block::sized(gradients_));
    const auto ranks = static_cast<std::size_t>(transport_.size());
    charge_compute(meter_, optimizer_.flops((parameters_ + ranks - 1) / ranks));
    if (setup.zero_stage < 3 && gather_after_step_) gather_parameters(setup, transport_, weights_);
  }
  void apply_own_gradient() override { charge_compute(meter_, optimizer_.flops(parameters_)); }
  void apply_site_averaged_gradient() override {
    context_.observer->on_gradient_staleness(0);
    context_.setup->collectives.allreduce().run(*site_, comm::Block::sized(site_gradients_));
    charge_compute(meter_, optimizer_.flops(parameters_));
  }
  void average_parameters() override {
    context_.setup->collectives.allreduce().run(transport_, comm::Block::sized(weights_));
    charge_compute(meter_, static_cast<double>(parameters_));
  }
  /// DiLoCo's outer step as time: the outer gradient allreduced at the parameters' wire precision, and the
  /// difference, the mean and the outer optimizer's step (sync::apply_outer_step's operations).
  void outer_step(const sync::OuterOptimizer& outer) override {
    context_.setup->collectives.allreduce().run(transport_, comm::Block::sized(weights_));
    charge_compute(meter_, 2.0 * static_cast<double>(parameters_) + sync::outer_step_operations(parameters_, outer));
  }
  /// Streaming DiLoCo's fragments, as time: their sizes at the outer precision.
  void exchange_fragments(FragmentExchange* fragments) { fragments_ = fragments; }
  void send_fragment(int fragment) override { fragments_->send(fragment, {}); }
  void merge_fragment(int fragment) override { fragments_->merge(fragment, {}); }
  void gossip(bool /*with_all*/) override {
    // The scenario check refuses timing-only models under gossip, which needs every worker's parameters.
    throw std::logic_error("a timing-only worker cannot gossip");
  }

 private:
  const TrainingContext& context_;
  const Meter& meter_;
  S4uTransport& transport_;
  std::size_t gradients_;  ///< message elements (4 bytes each) of the gradients at their wire precision
  std::size_t weights_;    ///< the same for the parameters
  std::size_t parameters_;
  const models::Optimizer& optimizer_;
  GradientStream* stream_ = nullptr;
  bool gather_after_step_ = true;
  S4uTransport* site_ = nullptr;
  std::size_t site_gradients_ = 0;
  FragmentExchange* fragments_ = nullptr;
};

/// One worker's forward and backward passes as time: whole, layer by layer under ZeRO stage 3 (each layer
/// gathered before its forward and its backward pass), bucket by bucket when the backward pass hands its
/// buckets to the gradient stream, and with the step's first forward pass waiting for each bucket's
/// gathered parameters (ZeRO 1 and 2 with overlap_parameter_gather).
class TimedPasses {
 public:
  TimedPasses(const TrainingSetup& setup, const Meter& meter, S4uTransport& transport, const models::ModelProfile& profile,
              int parameter_bytes)
      : setup_(setup), meter_(meter), transport_(transport), profile_(profile), parameter_bytes_(parameter_bytes),
        step_flops_(profile.training_flops()) {}

  /// The last micro-batch's backward pass hands `buckets` to `stream` as each is done.
  void overlap(GradientStream* stream, std::vector<models::GradientBucket> buckets) {
    stream_ = stream;
    buckets_ = std::move(buckets);
  }
  /// The step's first forward pass waits for `gathers`.
  void gather_with(ParameterGathers* gathers) { gathers_ = gathers; }
  void start_step() {
    if (gathers_ == nullptr) return;
    gathers_->start_step();
    first_forward_ = true;
  }
  /// A micro-batch whose gradients accumulate, at straggler `factor`.
  void accumulating(double factor) {
    if (setup_.zero_stage == 3) {
      gathered(factor);
    } else if (gathers_ != nullptr && first_forward_) {
      forward(factor);
      charge_compute(meter_, (step_flops_ - profile_.forward_flops()) * factor);
    } else {
      charge_compute(meter_, step_flops_ * factor);
    }
  }
  /// The step's last micro-batch, its gradients handed to the stream bucket by bucket; as accumulating()
  /// without a stream.
  void last(double factor) {
    if (stream_ == nullptr) {
      accumulating(factor);
      return;
    }
    const bool gather = setup_.zero_stage == 3;
    if (gather) {
      for (const models::LayerProfile& layer : profile_.layers) {
        gather_layer(layer);
        charge_compute(meter_, layer.forward_flops * factor);
      }
    } else {
      forward(factor);
    }
    for (const models::GradientBucket& bucket : buckets_) {
      double flops = 0.0;
      for (std::size_t layer = bucket.end; layer-- > bucket.first;) {
        if (gather) {
          charge_compute(meter_, flops * factor);
          flops = 0.0;
          gather_layer(profile_.layers[layer]);
        }
        flops += profile_.layers[layer].backward_flops;
      }
      charge_compute(meter_, flops * factor);
      if (bucket.parameters > 0) stream_->hand_over();
    }
  }

 private:
  /// ZeRO stage 3 holds a chunk of each layer: the layer is gathered, in the worker's own channels.
  void gather_layer(const models::LayerProfile& layer) {
    if (layer.parameters > 0) {
      const auto ranks = static_cast<std::size_t>(transport_.size());
      gather_parameters(setup_, transport_, wire_elements(layer.parameters, parameter_bytes_, ranks));
    }
  }
  void gathered(double factor) {
    for (const models::LayerProfile& layer : profile_.layers) {
      gather_layer(layer);
      charge_compute(meter_, layer.forward_flops * factor);
    }
    for (auto layer = profile_.layers.rbegin(); layer != profile_.layers.rend(); ++layer) {
      gather_layer(*layer);
      charge_compute(meter_, layer->backward_flops * factor);
    }
  }
  /// The forward pass; the step's first waits before each layer whose bucket is still being gathered.
  void forward(double factor) {
    if (gathers_ == nullptr || !first_forward_) {
      charge_compute(meter_, profile_.forward_flops() * factor);
      return;
    }
    first_forward_ = false;
    double flops = 0.0;
    for (std::size_t layer = 0; layer < profile_.layers.size(); ++layer) {
      if (gathers_->waits_before(0, layer)) {
        charge_compute(meter_, flops * factor);
        flops = 0.0;
        gathers_->wait_before(0, layer, meter_);
      }
      flops += profile_.layers[layer].forward_flops;
    }
    charge_compute(meter_, flops * factor);
  }

  const TrainingSetup& setup_;
  const Meter& meter_;
  S4uTransport& transport_;
  const models::ModelProfile& profile_;
  int parameter_bytes_;
  double step_flops_;
  GradientStream* stream_ = nullptr;
  std::vector<models::GradientBucket> buckets_;
  ParameterGathers* gathers_ = nullptr;
  bool first_forward_ = false;  ///< the step's first forward pass is still to run
};

}  // namespace

TimingOnlyWorker::TimingOnlyWorker(TrainingContext context, int rank) : context_(std::move(context)), rank_(rank) {}

void TimingOnlyWorker::operator()() {
  const TrainingSetup& setup = *context_.setup;
  if (!is_timing_only(setup.mode) || !setup.sync->lock_step()) {
    throw std::logic_error("a timing-only worker needs a profile and a lock-step strategy");
  }
  const Meter meter = context_.meter(rank_);
  const int workers = context_.scenario->cluster.workers;
  S4uTransport transport(context_.network,
                         {.name = "allreduce",
                          .rank = rank_,
                          .size = workers,
                          .machines = setup.graph.worker_machines(),
                          .shortcut = context_.network.shortcut,
                          .mirrored = context_.mirroring == Mirroring::every_worker},
                         meter);
  // The optimizer's cost per parameter needs no state: it is made for none.
  const std::unique_ptr<models::Optimizer> optimizer = make_optimizer(context_, 0);
  // Micro-batches without model parallelism accumulate gradients: each runs its forward and backward pass
  // in turn, and the last one's gradients are the step's.
  const int microbatches = context_.scenario->training.parallelism.microbatches;
  const auto batch = static_cast<std::size_t>(context_.scenario->training.batch_per_worker / microbatches);
  const scenario::DeviceProfile& device = context_.scenario->cluster.device_of(rank_);
  // The layers with the FLOPs their host executes: each layer's own roofline.
  const models::ModelProfile& profile =
      setup.layer_tables.of(setup.profile(), context_.scenario->training, device, static_cast<double>(batch));
  const auto parameters = static_cast<std::size_t>(std::llround(profile.parameters()));
  // Messages are padded to a multiple of the workers (at most workers - 1 extra elements, as collective
  // libraries pad), so that every ring round moves equal chunks and identical rounds can be shortened.
  const auto ranks = static_cast<std::size_t>(workers);
  const scenario::WirePrecision& wire = context_.scenario->training.wire;
  const std::size_t gradients = wire_elements(profile.parameters(), wire.gradients, ranks);
  const std::size_t weights = wire_elements(profile.parameters(), wire.parameters, ranks);
  TimedSteps steps(context_, meter, transport, gradients, weights, parameters, *optimizer);
  // Hierarchical DiLoCo only: a site's group is a scan of every rank.
  std::optional<SiteMembers> site;
  if (setup.sync->steps_with_its_site()) {
    site.emplace(setup, context_.network, rank_, meter);
    steps.with_site(&site->transport, wire_elements(profile.parameters(), wire.gradients, site->group.ranks.size()));
  }
  std::optional<FragmentExchange> fragments;
  if (setup.sync->streaming() != nullptr) {
    fragments.emplace(context_, rank_, meter, transport, parameters, wire.parameters);
    steps.exchange_fragments(&*fragments);
  }
  TimedPasses passes(setup, meter, transport, profile, wire.parameters);
  // Overlap: the backward pass runs bucket by bucket, handing each over to the gradient stream as it is done.
  std::optional<GradientStream> stream;
  if (setup.overlap) {
    std::vector<models::GradientBucket> buckets = models::gradient_buckets(profile, setup.bucket_bytes, wire.gradients);
    std::vector<std::size_t> messages;
    for (const models::GradientBucket& bucket : buckets) {
      if (bucket.parameters > 0) messages.push_back(wire_elements(bucket.parameters, wire.gradients, ranks));
    }
    stream.emplace(context_, rank_, setup.zero_stage > 0 ? setup.collectives.reduce_scatter() : setup.collectives.allreduce(),
                   std::move(messages), setup.total_iterations);
    steps.overlap_with(&*stream);
    passes.overlap(&*stream, std::move(buckets));
  }
  // ZeRO 1 and 2 with overlap_parameter_gather: the step's first forward pass waits for each bucket's gather.
  std::optional<ParameterGathers> gathers;
  if (context_.scenario->training.overlap_parameter_gather) {
    gathers.emplace(context_, rank_, std::vector<const models::ModelProfile*>{&profile}, std::vector<std::size_t>{0},
                    GatherGroup{"parameters", {}, rank_, {}, ranks});
    steps.gather_during_forward();
    passes.gather_with(&*gathers);
  }
  for (std::int64_t iteration = 1; iteration <= setup.total_iterations; ++iteration) {
    before_iteration(context_, iteration, meter, rank_);
    const double factor = step_factor(context_, rank_);
    passes.start_step();
    for (int micro = 1; micro < microbatches; ++micro) passes.accumulating(factor);
    passes.last(factor);
    setup.sync->after_gradient(iteration, setup.total_iterations, steps);
    if (rank_ == 0 && context_.progress) {
      context_.progress(Progress{iteration, setup.total_iterations, simgrid::s4u::Engine::get_clock()});
    }
  }
}

}  // namespace dtsim::runtime
