#include "sim/runtime/model_parallel/model_parallel_worker.hpp"

#include "models/device_share.hpp"
#include "models/expert_dispatch.hpp"
#include "models/gradient_buckets.hpp"
#include "models/pipeline_plan.hpp"
#include "sim/comm/all_to_all.hpp"
#include "sim/comm/recorded_steps.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/runtime/model_parallel/context_attention.hpp"
#include "sim/runtime/model_parallel/gradient_stream.hpp"
#include "sim/runtime/model_parallel/parameter_gathers.hpp"
#include "sim/runtime/model_parallel/pass_script.hpp"
#include "sim/runtime/model_parallel/routing_loads.hpp"
#include "sim/runtime/model_parallel/worker_group.hpp"
#include "sim/runtime/network/s4u_transport.hpp"
#include "sim/runtime/observe/compute_spans.hpp"
#include "sim/scenario/expert_grid.hpp"
#include "sim/scenario/parallel_axes.hpp"
#include "sim/scenario/parallel_layout.hpp"

#include <fmt/format.h>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <memory>
#include <optional>
#include <string>

namespace dtsim::runtime {
namespace {

/// Transformer Engine's pipelined reduce-scatter splits the product in 4: the default num_splits its
/// initialize_ub gives proj_fprop and fc2_fprop (NVIDIA/TransformerEngine, transformer_engine/pytorch/module/
/// base.py, 2024), whose gathers are ring exchanges and whose backward reduce-scatters are bulk overlaps.
constexpr double kReduceSplits = 4.0;
/// The streaming multiprocessors its collective kernels hold while they run beside a product: initialize_ub's
/// default num_sm, 16, for the pipelined and bulk overlaps; a ring exchange copies with the copy engines, on 1.
constexpr int kCollectiveMultiprocessors = 16;
constexpr int kRingExchangeMultiprocessors = 1;
/// The multiprocessors the expert group's all-to-all kernels hold while another micro-batch computes beside
/// them: DeepEP's default Buffer.num_sms, 20 (deepseek-ai/DeepEP, deep_ep/buffer.py), the 20 of an H800's 132
/// DeepSeek-V3's report gives its dispatch and combine kernels (arXiv:2412.19437, section 3.2.2).
constexpr int kExchangeMultiprocessors = 20;

/// The groups a device's passes communicate with: its tensor group, its expert group (null without expert
/// parallelism), its context group's attention (null without context parallelism) and its expert-tensor group
/// (null without expert tensor parallelism).
struct PassPeers {
  S4uTransport& tensor;
  S4uTransport* experts = nullptr;
  ContextAttention* attention = nullptr;
  S4uTransport* expert_tensor = nullptr;
  /// The lane the expert group's exchanges report to while another pass computes beside them
  /// (`training.overlap_expert_exchange`); null without.
  const Meter* exchange_lane = nullptr;
};

/// One micro-batch's forward or backward pass through a device's layers: compute charged in runs between
/// the tensor group's sums (Megatron-LM's f and g operators). Its layers carry the FLOPs their host executes
/// per micro-batch (compute::host_flops).
class LayerPasses {
 public:
  /// `overlap`: the lane of the tensor group's communication overlapped with compute
  /// (`training.overlap_tensor_communication`); null without. `peers.experts`: the expert group that exchanges a
  /// mixture's routed tokens, null without expert parallelism; `peers.attention`: the context group's keys and
  /// values, null without context parallelism.
  LayerPasses(const TrainingContext& context, const models::ModelProfile& layers, const Meter& meter, PassPeers peers,
              std::size_t microbatch, const Meter* overlap, const scenario::DeviceProfile& device)
      : context_(context), layers_(layers), meter_(meter), tensor_(peers.tensor), experts_(peers.experts),
        attention_(peers.attention), expert_tensor_(peers.expert_tensor),
        expert_grid_(context.scenario->training.parallelism.expert_tensor_declared), microbatch_(microbatch),
        overlap_(overlap), exchange_lane_(peers.exchange_lane), device_(device) {}

  /// The micro-batch the next passes are of: under uneven routing, its draws (`route`: the expert group's
  /// draws of the step, by micro-batch and block) set the experts' work and the pieces exchanged.
  void route(const RoutingLoads* routing, std::int64_t iteration, int microbatch) {
    routing_ = routing;
    iteration_ = iteration;
    microbatch_index_ = microbatch;
  }

  /// Records the next passes into `script` instead of running them (null: runs them again), to be run beside
  /// another micro-batch's (run_interleaved).
  void record_into(PassScript* script) { script_ = script; }

  /// With `gathers`, the step's first forward pass of chunk `chunk`: each bucket of parameters is waited for
  /// before its first layer.
  void forward(double factor, ParameterGathers* gathers = nullptr, std::size_t chunk = 0) {
    for (std::size_t i = 0; i < layers_.layers.size(); ++i) {
      const models::LayerProfile& layer = layers_.layers[i];
      if (gathers != nullptr && gathers->waits_before(chunk, i)) {
        communicate(factor, [this, gathers, chunk, i] { gathers->wait_before(chunk, i, meter_); });
      }
      const double flops = layer.forward_flops * work_of(layer);
      if (attend(i, flops, factor, true)) continue;
      if (layer.exchange == models::TokenExchange::Dispatch) exchange(layer, factor, Toward::Experts);
      if (on_expert_grid(layer)) {
        expert_grid_pass(layer, flops, factor, true);
      } else if (overlap_ != nullptr && layer.tensor == models::TensorSplit::Column) {
        overlapped(context_.setup->collectives.allgather(), layer, ring_exchange(flops), factor);
      } else if (overlap_ != nullptr && layer.tensor == models::TensorSplit::Row) {
        overlapped(context_.setup->collectives.reduce_scatter(), layer, pipelined(flops), factor);
      } else {
        if (sequence_parallel() && layer.tensor == models::TensorSplit::Column) gather(layer, factor);
        pending_ += flops;
        if (split() && layer.tensor == models::TensorSplit::Row) reduce(layer, factor);
      }
      if (layer.exchange == models::TokenExchange::Combine) exchange(layer, factor, Toward::Sources);
    }
    flush(factor);
  }
  /// The backward pass, or under zero bubble its input-gradient part (which carries the tensor group's
  /// sums) and, later, its weight-gradient part (local).
  enum class Part { Whole, Input, Weights };
  /// With `stream`, the pass that finishes the step's gradients: each bucket is handed over to the replicas'
  /// gradient stream once its layers are done.
  void backward(double factor, Part part = Part::Whole, GradientStream* stream = nullptr,
                const std::vector<models::GradientBucket>* buckets = nullptr) {
    std::size_t next = 0;  // the next bucket to hand over
    int recomputed = -1;   // the block whose forward pass was last run again
    for (std::size_t i = layers_.layers.size(); i-- > 0;) {
      const models::LayerProfile& layer = layers_.layers[i];
      const double work = work_of(layer);
      const double weights = models::weight_gradient_flops(layer) * work;
      if (part != Part::Weights && full_recomputation() && layer.block >= 0 && layer.block != recomputed) {
        recomputed = layer.block;
        recompute_sums(i, factor);
      }
      if (part == Part::Weights) {
        pending_ += weights;
      } else {
        const double flops = part == Part::Whole ? layer.backward_flops * work : layer.backward_flops * work - weights;
        // The combine's gradient goes to the experts, the dispatch's back to the tokens' devices.
        if (layer.exchange == models::TokenExchange::Combine) exchange(layer, factor, Toward::Experts);
        if (attend(i, flops, factor, false)) {
          // The context group's attention, with its keys and values.
        } else if (on_expert_grid(layer)) {
          expert_grid_pass(layer, flops, factor, false);
        } else if (overlap_ != nullptr && layer.tensor == models::TensorSplit::Row) {
          overlapped(context_.setup->collectives.allgather(), layer, ring_exchange(flops), factor);
        } else if (overlap_ != nullptr && layer.tensor == models::TensorSplit::Column) {
          // The weights' gradient is none of this pass when zero bubble defers it.
          overlapped(context_.setup->collectives.reduce_scatter(), layer, bulk(flops, part == Part::Whole ? weights : 0.0), factor);
        } else {
          if (sequence_parallel() && layer.tensor == models::TensorSplit::Row) gather(layer, factor);
          pending_ += flops;
          if (split() && layer.tensor == models::TensorSplit::Column) reduce(layer, factor);
        }
        if (layer.exchange == models::TokenExchange::Dispatch) exchange(layer, factor, Toward::Sources);
      }
      if (stream != nullptr && part != Part::Input && next < buckets->size() && (*buckets)[next].first == i) {
        if ((*buckets)[next].parameters > 0) {
          communicate(factor, [stream] { stream->hand_over(); });
        } else {
          flush(factor);
        }
        ++next;
      }
    }
    flush(factor);
  }

 private:
  /// Context parallelism: whether layer `i` is attention's context product, computed with its scores.
  [[nodiscard]] bool attended(std::size_t i) const {
    return attention_ != nullptr && i > 0 && layers_.layers[i - 1].context_exchange_elements > 0.0 &&
           layers_.layers[i].op == models::OpClass::Attention;
  }
  /// Context parallelism: layer `i`'s pass when it is attention (`flops` its own): its scores with the context
  /// product beside them, over every block of keys and values the group brings; false for any other layer.
  bool attend(std::size_t i, double flops, double factor, bool forward) {
    if (attended(i)) return true;
    const models::LayerProfile& layer = layers_.layers[i];
    if (attention_ == nullptr || layer.context_exchange_elements <= 0.0) return false;
    const bool with_context = i + 1 < layers_.layers.size() && attended(i + 1);
    const models::LayerProfile* beside = with_context ? &layers_.layers[i + 1] : nullptr;
    const std::size_t block = wire_elements(layer.context_exchange_elements * static_cast<double>(microbatch_),
                                            context_.scenario->training.wire.activations, 1);
    const double all = flops + (beside == nullptr ? 0.0 : forward ? beside->forward_flops : beside->backward_flops);
    communicate(factor, [this, forward, all, block, factor] {
      if (forward) {
        attention_->forward(all, block, factor);
      } else {
        attention_->backward(all, block, factor);
      }
    });
    return true;
  }
  [[nodiscard]] bool split() const { return tensor_.size() > 1; }
  [[nodiscard]] bool full_recomputation() const {
    return (split() || experts_ != nullptr || expert_tensor_ != nullptr) &&
           scenario::device_share_of(context_.scenario->training).recomputation == models::Recomputation::Full;
  }
  /// Full recomputation runs a block's forward pass again before its backward pass (Megatron-LM's activation
  /// checkpointing), and with it the forward pass's sums over the tensor group and its token exchanges; its FLOPs are already in the
  /// block's backward ones (models::device_share). `last` is the block's last layer.
  void recompute_sums(std::size_t last, double factor) {
    std::size_t first = last;
    while (first > 0 && layers_.layers[first - 1].block == layers_.layers[last].block) --first;
    for (std::size_t i = first; i <= last; ++i) {
      const models::LayerProfile& layer = layers_.layers[i];
      if (layer.exchange == models::TokenExchange::Dispatch) exchange(layer, factor, Toward::Experts);
      if (on_expert_grid(layer)) {
        expert_grid_pass(layer, 0.0, factor, true);
      } else {
        if (sequence_parallel() && layer.tensor == models::TensorSplit::Column) gather(layer, factor);
        if (split() && layer.tensor == models::TensorSplit::Row) reduce(layer, factor);
      }
      if (layer.exchange == models::TokenExchange::Combine) exchange(layer, factor, Toward::Sources);
    }
  }
  [[nodiscard]] bool sequence_parallel() const { return split() && context_.scenario->training.parallelism.sequence_parallel; }
  /// `layer`'s values a group of `ranks` sums or gathers, at the activations' wire precision.
  [[nodiscard]] comm::Block message(const models::LayerProfile& layer, int ranks) const {
    const std::size_t elements =
        wire_elements(layer.tensor_sum_elements * static_cast<double>(microbatch_),
                      context_.scenario->training.wire.activations, static_cast<std::size_t>(ranks));
    return comm::Block::sized(elements);
  }
  [[nodiscard]] comm::Block message(const models::LayerProfile& layer) const { return message(layer, tensor_.size()); }
  /// Whether `layer` is a routed expert's on the experts' own grid (expert_tensor declared): the tensor group
  /// leaves it to the expert-tensor group.
  [[nodiscard]] bool on_expert_grid(const models::LayerProfile& layer) const { return expert_grid_ && layer.routed(); }
  /// A routed expert layer's pass on the experts' own grid (`flops` its own). Its expert-tensor group's devices
  /// are other replicas with other tokens: forward, each gathers the group's tokens before a column split and
  /// reduce-scatters the sums after a row split, so that it keeps its own tokens' outputs; backward the other way
  /// round (Megatron-Core's expert-tensor gathers and reduce-scatters). Nothing to sum without the group.
  void expert_grid_pass(const models::LayerProfile& layer, double flops, double factor, bool forward) {
    const bool gathers_first = (layer.tensor == models::TensorSplit::Column) == forward;
    const auto collective = [this, &layer](const comm::CollectiveAlgorithm& algorithm) {
      return [this, &layer, &algorithm] { algorithm.run(*expert_tensor_, message(layer, expert_tensor_->size())); };
    };
    if (expert_tensor_ != nullptr && gathers_first) communicate(factor, collective(context_.setup->collectives.allgather()));
    pending_ += flops;
    if (expert_tensor_ != nullptr && !gathers_first) {
      communicate(factor, collective(context_.setup->collectives.reduce_scatter()));
    }
  }
  void flush(double factor) {
    if (pending_ > 0.0) {
      if (script_ != nullptr) {
        script_->push_back({PassStep::Kind::Compute, pending_ * factor, {}});
      } else {
        charge_compute(meter_, pending_ * factor);
      }
    }
    pending_ = 0.0;
  }
  /// Charges the compute before it, then runs `step` (a collective, or a step that waits for one), or records both.
  void communicate(double factor, std::function<void()> step, PassStep::Kind kind = PassStep::Kind::Communicate) {
    flush(factor);
    if (script_ != nullptr) {
      script_->push_back({kind, 0.0, std::move(step)});
    } else {
      step();
    }
  }
  /// The group's sum of the hidden state: an allreduce, or a reduce-scatter by tokens under sequence
  /// parallelism.
  void reduce(const models::LayerProfile& layer, double factor) {
    const TrainingSetup& setup = *context_.setup;
    const comm::CollectiveAlgorithm& sum = sequence_parallel() ? setup.collectives.reduce_scatter() : setup.collectives.allreduce();
    communicate(factor, [this, &layer, &sum] { sum.run(tensor_, message(layer)); });
  }
  /// Which way an exchange goes: the tokens (or the outputs' gradients) to their experts' devices, or the
  /// experts' outputs (or the tokens' gradients) back to the devices the tokens came from.
  enum class Toward { Experts, Sources };
  /// Expert parallelism: a micro-batch's routed tokens moved by the expert group's all-to-all, toward the
  /// experts at the dispatch's precision, back at the activations'. Under uneven routing each device sends each other device the copies routed to
  /// its experts (toward the experts), or returns to each the outputs of their tokens its experts kept.
  void exchange(const models::LayerProfile& layer, double factor, Toward toward) {
    if (experts_ == nullptr) return;
    const double values = layer.exchange_elements * static_cast<double>(microbatch_);
    const scenario::WirePrecision& wire = context_.scenario->training.wire;
    const int bytes = toward == Toward::Experts ? wire.dispatch : wire.activations;
    // Recorded, an exchange reports to its own lane: the compute of another pass may run beside it.
    const Meter* lane = script_ != nullptr ? exchange_lane_ : nullptr;
    if (context_.scenario->training.token_dispatcher == scenario::TokenDispatcher::DeepEp) {
      communicate(factor, on_lane(*experts_, lane, [this, values, bytes, toward] { deduplicated(values, bytes, toward); }),
                  PassStep::Kind::Exchange);
      return;
    }
    if (context_.scenario->training.token_dispatcher == scenario::TokenDispatcher::AllGather) {
      communicate(factor, on_lane(*experts_, lane, [this, values, bytes, toward] { gathered(values, bytes, toward); }),
                  PassStep::Kind::Exchange);
      return;
    }
    if (routing_ == nullptr) {
      const std::size_t elements = wire_elements(values, bytes, static_cast<std::size_t>(experts_->size()));
      communicate(factor,
                  on_lane(*experts_, lane,
                          [this, elements] {
                            run_on_experts(context_.setup->collectives.of(comm::Operation::all_to_all),
                                           comm::Block::sized(elements));
                          }),
                  PassStep::Kind::Exchange);
      return;
    }
    const std::vector<double>& loads = routing_->loads(iteration_, microbatch_index_, layer.block);
    const double ranks = static_cast<double>(loads.size());
    std::vector<std::size_t> pieces;
    for (const double load : loads) {
      const double share = toward == Toward::Experts ? load : loads[static_cast<std::size_t>(experts_->rank())];
      pieces.push_back(wire_elements(values * share / ranks, bytes, 1));
    }
    communicate(factor, on_lane(*experts_, lane, [this, pieces] { comm::direct_all_to_all_v(*experts_, pieces); }),
                PassStep::Kind::Exchange);
  }
  /// Megatron-Core's allgather dispatcher: toward the experts every device gathers the group's tokens (a micro-batch's
  /// `values` routed copies are values / top_k token values a device), whatever the routing, and keeps those of its
  /// experts; back, the experts' weighted outputs of every token are summed onto the token's device by a
  /// reduce-scatter. Backward the other way round: the outputs' gradients gathered, the tokens' reduce-scattered.
  void gathered(double values, int bytes, Toward toward) {
    const auto ranks = static_cast<std::size_t>(experts_->size());
    const double tokens = values / context_.setup->profile().shape.top_k;
    const comm::Block block = comm::Block::sized(wire_elements(tokens * static_cast<double>(ranks), bytes, ranks));
    const TrainingSetup& setup = *context_.setup;
    run_on_experts(toward == Toward::Experts ? setup.collectives.allgather() : setup.collectives.reduce_scatter(),
                   block);
  }
  /// `collective` of `block` on the expert group. Where this device stands for its group (mirrored_ranks.hpp), the
  /// others' steps are recorded from the same collective (a run's collectives report no library choices, which a
  /// library makes for rank 0, so that recording rank 0 for a device of another rank reports nothing).
  void run_on_experts(const comm::CollectiveAlgorithm& collective, comm::Block block) {
    if (experts_->mirrored()) {
      experts_->set_steps_of_others(
          [&collective, block, size = experts_->size(), machines = experts_->machines()](int rank) {
            return comm::recorded_steps(collective, block, rank, size, machines);
          });
    }
    collective.run(*experts_, block);
  }
  /// DeepEP's dispatch (toward the experts) or combine of a micro-batch's `values` routed copies at `bytes` a value,
  /// under even routing: each token crosses the fabric once to each other machine holding one of its experts, to
  /// the device of its own local index (tokens x the machine's reach, models::machine_reach), then every device
  /// forwards the copies it holds to the devices of their experts inside its machine (values / devices a
  /// machine, to each); combined, inside the machine first, then across.
  void deduplicated(double values, int bytes, Toward toward) {
    if (experts_->mirrored()) {
      experts_->set_steps_of_others(
          [this, values, bytes, toward](int rank) { return deepep_steps(values, bytes, toward, rank); });
    }
    experts_->run_steps(deepep_steps(values, bytes, toward, experts_->rank()));
  }
  /// The steps of rank `of` of the expert group in deduplicated().
  std::vector<comm::Step> deepep_steps(double values, int bytes, Toward toward, int of) {
    const comm::MachineLayout& layout = *layouts_.of(*experts_, "deepep token dispatcher");
    const auto rank = static_cast<std::size_t>(of);
    const std::vector<int>& machine = *layout.machine_ranks[static_cast<std::size_t>(layout.machine_of[rank])];
    const std::vector<int>& rail = *layout.peers[static_cast<std::size_t>(layout.local_index[rank])];
    const int machines = static_cast<int>(layout.machine_ranks.size());
    const models::TransformerShape& shape = context_.setup->profile().shape;
    if (reach_.empty()) {
      const models::RoutingSpec& routing = context_.scenario->training.routing;
      const models::GroupLimitedRouting limited{shape.experts, shape.top_k, routing.groups, routing.group_limit};
      for (int m = 0; m < machines; ++m) reach_.push_back(models::machine_reach(limited, machines, m));
    }
    const double tokens = values / shape.top_k;
    comm::Step across{{}, {}, 0, {}};
    for (const int peer : rail) {
      if (peer == of) continue;
      across.to.push_back(peer);
      across.sizes.push_back(wire_elements(tokens * reach_[static_cast<std::size_t>(layout.machine_of[static_cast<std::size_t>(peer)])], bytes, 1));
    }
    across.from = across.to;
    comm::Step inside{{}, {}, wire_elements(values / static_cast<double>(machine.size()), bytes, 1), {}};
    for (const int peer : machine) {
      if (peer != of) inside.to.push_back(peer);
    }
    inside.from = inside.to;
    std::vector<comm::Step> steps;
    for (comm::Step* step : toward == Toward::Experts ? std::array{&across, &inside} : std::array{&inside, &across}) {
      if (!step->to.empty()) steps.push_back(std::move(*step));
    }
    return steps;
  }
  /// `step` with `group` reporting to `lane` while it runs (to its own without).
  [[nodiscard]] static std::function<void()> on_lane(S4uTransport& group, const Meter* lane, std::function<void()> step) {
    if (lane == nullptr) return step;
    return [&group, lane, step = std::move(step)] {
      const Meter own = group.meter();
      group.report_to(*lane);
      step();
      group.report_to(own);
    };
  }
  /// This device's work on `layer` relative to even routing: its experts' load for a routed expert layer.
  [[nodiscard]] double work_of(const models::LayerProfile& layer) const {
    if (routing_ == nullptr || !layer.routed()) return 1.0;
    return routing_->loads(iteration_, microbatch_index_, layer.block)[static_cast<std::size_t>(experts_->rank())];
  }
  /// Sequence parallelism: the tokens split over the group gathered before a split layer.
  void gather(const models::LayerProfile& layer, double factor) {
    communicate(factor, [this, &layer] { context_.setup->collectives.allgather().run(tensor_, message(layer)); });
  }
  /// A layer's FLOPs around a collective of the tensor group: `before` it, `beside` it (the two at once),
  /// `after` it.
  struct Around {
    double before = 0.0;
    double beside = 0.0;
    double after = 0.0;
    int taken = 0;  ///< the multiprocessors the collective's kernel holds while it runs
  };
  /// Ring exchange (a gather): each of the group's chunks of the tokens multiplied as it arrives, the last
  /// after the gather.
  [[nodiscard]] Around ring_exchange(double flops) const {
    const double chunks = tensor_.size();
    return {0.0, flops * (chunks - 1.0) / chunks, flops / chunks, kRingExchangeMultiprocessors};
  }
  /// Pipelined (a forward reduce-scatter): the product in kReduceSplits chunks, each one's sum
  /// reduce-scattered beside the next.
  [[nodiscard]] static Around pipelined(double flops) {
    return {flops / kReduceSplits, flops * (kReduceSplits - 1.0) / kReduceSplits, 0.0, kCollectiveMultiprocessors};
  }
  /// Bulk (a backward reduce-scatter): the input's gradient reduce-scattered beside the `weights` FLOPs of the
  /// weights' gradient.
  [[nodiscard]] static Around bulk(double flops, double weights) {
    return {flops - weights, weights, 0.0, kCollectiveMultiprocessors};
  }
  /// `collective` of `layer`'s hidden state while part of its product computes, slowed by the multiprocessors
  /// the collective's kernel holds. The collective's time is the host's overlapped communication, on the
  /// overlap's own lane; the part of it that outlasts the compute beside it, the communication the worker
  /// waits for.
  void overlapped(const comm::CollectiveAlgorithm& collective, const models::LayerProfile& layer, Around flops,
                  double factor) {
    communicate(factor, [this, &collective, &layer, flops, factor] {
      charge_compute(meter_, flops.before * factor);
      run_beside(on_lane(tensor_, overlap_, [this, &collective, &layer] { collective.run(tensor_, message(layer)); }),
                 flops.beside * factor, meter_, meter_.carrying(Traffic::Tensor), device_.multiprocessors, flops.taken);
      charge_compute(meter_, flops.after * factor);
    });
  }

  const TrainingContext& context_;
  const models::ModelProfile& layers_;
  const Meter& meter_;
  S4uTransport& tensor_;
  S4uTransport* experts_;
  ContextAttention* attention_;
  S4uTransport* expert_tensor_;
  bool expert_grid_;  ///< the routed experts on their own grid (training.parallelism.expert_tensor declared)
  std::size_t microbatch_;
  const RoutingLoads* routing_ = nullptr;  ///< null: even routing
  std::int64_t iteration_ = 0;
  int microbatch_index_ = 0;
  const Meter* overlap_;
  const Meter* exchange_lane_;
  const scenario::DeviceProfile& device_;
  PassScript* script_ = nullptr;  ///< where the passes are recorded; null: run
  comm::MachineLayouts layouts_;   ///< the expert group's machines, for the deepep dispatcher
  std::vector<double> reach_;      ///< by machine of the expert group: a token's chance to reach it (deepep)
  double pending_ = 0.0;  ///< host FLOPs not charged yet
};

/// One of a device's model chunks (one without interleaving): its layers as it computes them, and the
/// messages at its ends.
struct Chunk {
  models::ChunkPlace place;  ///< its model stage and the devices of its neighbouring stages
  models::ModelProfile layers;
  models::ModelProfile timed;   ///< the layers with the FLOPs their host executes per micro-batch
  std::size_t to_next = 0;      ///< activations sent to the next stage
  std::size_t to_previous = 0;  ///< activation gradients sent to the previous stage
  std::unique_ptr<LayerPasses> passes;
};

/// Rank `rank`'s chunks, their passes timed on its device with its groups' transports for the tensor group's
/// sums and the expert group's exchanges (`overlap_tensor`: the lane of the sums overlapped with compute; null:
/// none).
std::vector<Chunk> device_chunks(const TrainingContext& context, int rank, const Meter& meter,
                                 const ParallelGroups& groups, const Meter* overlap_tensor, ContextAttention* attention,
                                 const Meter* exchange_lane) {
  const TrainingSetup& setup = *context.setup;
  const scenario::Scenario& s = *context.scenario;
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const int devices = plan.pipeline;
  const int device_index = scenario::coordinates_of(plan, rank)[scenario::ParallelAxis::Pipeline];
  const scenario::DeviceProfile& device = s.cluster.device_of(rank);
  const auto microbatch = static_cast<std::size_t>(s.training.batch_per_worker / plan.microbatches);
  // The layer tables give activations at 4 bytes a value; they travel at the activations' wire precision,
  // split by tokens over the tensor group under sequence parallelism.
  const double token_split = (plan.sequence_parallel ? plan.tensor : 1.0) * plan.context;
  const auto activation_message = [&](const models::LayerProfile& layer) {
    return wire_elements(layer.activation_bytes / 4.0 * static_cast<double>(microbatch) / token_split,
                         s.training.wire.activations, 1);
  };
  std::vector<Chunk> chunks(static_cast<std::size_t>(models::chunks_per_device(plan.schedule, plan.virtual_stages)));
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    Chunk& chunk = chunks[c];
    chunk.place = models::chunk_place(plan.schedule, devices, plan.virtual_stages, device_index, static_cast<int>(c));
    const auto first = setup.stage_layers[static_cast<std::size_t>(chunk.place.stage)];
    const auto last = setup.stage_layers[static_cast<std::size_t>(chunk.place.stage) + 1];
    const models::ModelProfile whole = models::stage_profile(setup.profile(), first, last);
    chunk.layers = models::device_share(whole, scenario::device_share_of(s.training));
    chunk.to_next = activation_message(whole.layers.back());
    // The gradient of the chunk's input: as large as the previous stage's output.
    if (first > 0) chunk.to_previous = activation_message(setup.profile().layers[first - 1]);
    // Each layer's FLOPs become those its host executes for a micro-batch: its own roofline.
    chunk.timed = compute::host_flops(chunk.layers, static_cast<double>(microbatch), device);
    chunk.passes = std::make_unique<LayerPasses>(
        context, chunk.timed, meter,
        PassPeers{*groups.tensor, groups.experts ? &**groups.experts : nullptr, attention,
                  groups.expert_tensor ? &**groups.expert_tensor : nullptr, exchange_lane},
        microbatch, overlap_tensor, device);
  }
  return chunks;
}

/// Overlap: the pass that finishes each chunk's gradients (the last of its passes that computes its weights'
/// gradient: a whole backward pass, or a weight pass after one that computed its input's gradient alone) hands
/// them to the replicas' stream bucket by bucket.
struct FinishingPasses {
  std::vector<const models::PipelinePass*> finishing;            ///< by chunk; null: none
  std::vector<std::vector<models::GradientBucket>> buckets;      ///< by chunk
  std::vector<std::size_t> messages;                             ///< the stream's, in the order they are handed over
};

FinishingPasses finishing_passes(const std::vector<models::PipelinePass>& passes, const std::vector<Chunk>& chunks,
                                 const TrainingSetup& setup, const scenario::Scenario& s) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  FinishingPasses out{std::vector<const models::PipelinePass*>(chunks.size(), nullptr),
                      std::vector<std::vector<models::GradientBucket>>(chunks.size()), {}};
  for (const models::PipelinePass& pass : passes) {
    if (!pass.forward && !pass.input_only) out.finishing[static_cast<std::size_t>(pass.chunk)] = &pass;
  }
  for (const models::PipelinePass& pass : passes) {
    const auto c = static_cast<std::size_t>(pass.chunk);
    if (out.finishing[c] != &pass) continue;
    out.buckets[c] = models::gradient_buckets(chunks[c].layers, setup.bucket_bytes, s.training.wire.gradients);
    for (const models::GradientBucket& bucket : out.buckets[c]) {
      if (bucket.parameters > 0) {
        out.messages.push_back(wire_elements(bucket.parameters, s.training.wire.gradients,
                                             static_cast<std::size_t>(plan.data * plan.context)));
      }
    }
  }
  return out;
}

/// The chunks in the order of their first forward pass.
std::vector<std::size_t> forward_order(const std::vector<models::PipelinePass>& passes) {
  std::vector<std::size_t> order;
  for (const models::PipelinePass& pass : passes) {
    const auto c = static_cast<std::size_t>(pass.chunk);
    if (pass.forward && std::find(order.begin(), order.end(), c) == order.end()) order.push_back(c);
  }
  return order;
}

/// `training.overlap_expert_exchange`: the compute's meter, the one the exchanges' exposed part is reported
/// to, and the device's multiprocessors.
struct ExchangeOverlap {
  const Meter& meter;
  Meter exposed;
  std::optional<int> multiprocessors;
};

/// One step's passes on one device, as its schedule lists them: each waits for its input from the
/// neighbouring stage, computes, and posts its output to the other neighbour.
class PipelineStep {
 public:
  /// `routing`: the expert group's draws under uneven routing; null: even. `exchanges`: the device and lane with
  /// which a forward pass and the backward pass after it run interleaved, their exchanges overlapped
  /// (`training.overlap_expert_exchange`); null: one after the other.
  /// `declared_pairs`: the passes say which run as one (`beside_next`, DualPipe's); otherwise Megatron-Core's
  /// combined 1F1B pairs them where `exchanges` is set.
  PipelineStep(std::vector<Chunk>& chunks, S4uTransport& line, bool declared_pairs, FinishingPasses& finishing,
               GradientStream* stream, ParameterGathers* gathers, const RoutingLoads* routing,
               const ExchangeOverlap* exchanges)
      : chunks_(chunks), line_(line), declared_pairs_(declared_pairs), finishing_(finishing), stream_(stream),
        gathers_(gathers), routing_(routing), exchanges_(exchanges), gathered_(chunks.size(), false) {}

  void run(const std::vector<models::PipelinePass>& passes, double factor, std::int64_t iteration) {
    iteration_ = iteration;
    if (gathers_ != nullptr) {
      gathers_->start_step();
      gathered_.assign(chunks_.size(), false);
    }
    for (std::size_t p = 0; p < passes.size(); ++p) {
      if (p + 1 < passes.size() && pairs(passes[p], passes[p + 1])) {
        const bool forward_first = passes[p].forward;
        run_pair(passes[forward_first ? p : p + 1], passes[forward_first ? p + 1 : p], factor);
        ++p;
      } else {
        run_pass(passes[p], factor);
      }
    }
    for (const auto& pending : sent_) static_cast<void>(pending->wait());
    sent_.clear();
  }

 private:
  // Messages are told apart by the chunk they go to: activations on odd tags, their gradients on even ones.
  [[nodiscard]] static int activations_tag(int chunk_to) { return 1 + 2 * chunk_to; }
  [[nodiscard]] static int gradients_tag(int chunk_to) { return 2 + 2 * chunk_to; }

  /// Whether `first` and the pass after it run interleaved, as Megatron-Core's combined 1F1B pairs them: over
  /// a pipeline (interleaved, one more forward pass of warm-up) a forward pass and the backward pass after it;
  /// without, a backward pass and the next micro-batch's forward pass. Never a micro-batch's passes of one
  /// chunk with each other.
  [[nodiscard]] bool pairs(const models::PipelinePass& first, const models::PipelinePass& second) const {
    if (declared_pairs_) return first.beside_next;
    if (exchanges_ == nullptr || first.input_only || second.input_only || first.weights || second.weights ||
        first.forward == second.forward) {
      return false;
    }
    const bool one_stage = chunks_.size() == 1 && chunks_.front().place.next_device < 0 &&
                           chunks_.front().place.previous_device < 0;
    return (first.forward || one_stage) && (first.microbatch != second.microbatch || first.chunk != second.chunk);
  }

  /// Megatron-Core's combined 1F1B and DualPipe's forward-backward chunk: both passes' inputs received, their
  /// passes run interleaved (the backward pass's first, as its schedule_chunk_1f1b starts with the backward pass's
  /// combine), then both outputs sent. Without an expert group's exchanges to overlap, one after the other, as
  /// DualPipe runs a module without an overlapped_forward_backward.
  void run_pair(const models::PipelinePass& forward, const models::PipelinePass& backward, double factor) {
    receive(forward);
    receive(backward);
    if (exchanges_ == nullptr) {
      compute(forward, factor);
      compute(backward, factor);
      send(forward);
      send(backward);
      return;
    }
    const PassScript forward_script = recorded(forward, factor);
    const PassScript backward_script = recorded(backward, factor);
    run_interleaved(backward_script, forward_script, exchanges_->meter, exchanges_->exposed,
                    exchanges_->multiprocessors, kExchangeMultiprocessors);
    send(forward);
    send(backward);
  }

  void run_pass(const models::PipelinePass& pass, double factor) {
    receive(pass);
    compute(pass, factor);
    send(pass);
  }

  /// Waits for `pass`'s input from the neighbouring stage: a forward pass's activations from the previous one, a
  /// backward pass's gradients from the next (none for a weight pass).
  void receive(const models::PipelinePass& pass) {
    if (pass.weights) return;
    const models::ChunkPlace& place = chunks_[static_cast<std::size_t>(pass.chunk)].place;
    if (pass.forward && place.previous_device >= 0) {
      static_cast<void>(line_.post_recv(place.previous_device, activations_tag(pass.chunk))->wait());
    } else if (!pass.forward && place.next_device >= 0) {
      static_cast<void>(line_.post_recv(place.next_device, gradients_tag(pass.chunk))->wait());
    } else {
      return;
    }
    reap_completed_sends();
  }

  /// Waits for the oldest sends while they ended at an earlier instant, which returns at once. Message by
  /// message, SimGrid walks a list of an actor's open activities each time one ends: left open to the step's end,
  /// a stage's sends made a step's cost grow with the square of its micro-batches. Sends end about in the order
  /// they were posted, so the oldest suffice and a transport that cannot tell costs nothing. Right after a
  /// receive, whose wait has accounted the time until now, waiting for them books no time.
  void reap_completed_sends() {
    while (!sent_.empty() && sent_.front()->completed_before_now()) {
      static_cast<void>(sent_.front()->wait());
      sent_.pop_front();
    }
  }

  /// Posts `pass`'s output to the other neighbouring stage.
  void send(const models::PipelinePass& pass) {
    if (pass.weights) return;
    const Chunk& chunk = chunks_[static_cast<std::size_t>(pass.chunk)];
    const models::ChunkPlace& place = chunk.place;
    if (pass.forward && place.next_device >= 0) {
      sent_.push_back(line_.post_send(place.next_device, comm::Buffer::sized(chunk.to_next),
                                      activations_tag(place.next_chunk)));
    } else if (!pass.forward && place.previous_device >= 0) {
      sent_.push_back(line_.post_send(place.previous_device, comm::Buffer::sized(chunk.to_previous),
                                      gradients_tag(place.previous_chunk)));
    }
  }

  /// `pass`'s layers through its chunk: computed, or recorded into `script` (run_interleaved) when not null.
  void compute(const models::PipelinePass& pass, double factor, PassScript* script = nullptr) {
    const auto c = static_cast<std::size_t>(pass.chunk);
    LayerPasses& passes = *chunks_[c].passes;
    if (routing_ != nullptr) passes.route(routing_, iteration_, pass.microbatch);
    GradientStream* stream = stream_ != nullptr && finishing_.finishing[c] == &pass ? stream_ : nullptr;
    passes.record_into(script);
    if (pass.weights) {
      passes.backward(factor, LayerPasses::Part::Weights, stream, &finishing_.buckets[c]);
    } else if (pass.forward) {
      passes.forward(factor, gathers_ != nullptr && !gathered_[c] ? gathers_ : nullptr, c);
      gathered_[c] = true;
    } else {
      passes.backward(factor, pass.input_only ? LayerPasses::Part::Input : LayerPasses::Part::Whole, stream,
                      &finishing_.buckets[c]);
    }
    passes.record_into(nullptr);
  }

  [[nodiscard]] PassScript recorded(const models::PipelinePass& pass, double factor) {
    PassScript script;
    compute(pass, factor, &script);
    return script;
  }

  std::vector<Chunk>& chunks_;
  S4uTransport& line_;
  bool declared_pairs_;
  FinishingPasses& finishing_;
  GradientStream* stream_;
  ParameterGathers* gathers_;
  const RoutingLoads* routing_;
  const ExchangeOverlap* exchanges_;
  std::int64_t iteration_ = 0;
  std::vector<bool> gathered_;  ///< by chunk: whose first forward pass of the step has run
  std::deque<std::unique_ptr<comm::Pending>> sent_;  ///< the step's sends not yet waited for, oldest first
};

/// The parameters a device's chunks hold, and of them the routed experts' where they are held apart from the
/// dense layers (reduced over their own replicas).
struct Held {
  double parameters = 0.0;
  double experts = 0.0;
};

Held held_parameters(const std::vector<Chunk>& chunks, bool held_apart) {
  Held out;
  for (const Chunk& chunk : chunks) {
    out.parameters += chunk.layers.parameters();
    for (const models::LayerProfile& layer : chunk.layers.layers) {
      if (held_apart && layer.routed()) out.experts += layer.parameters;
    }
  }
  return out;
}

/// The axes along which a device's dense parameters are replicated.
constexpr std::array kReplicaAxes{scenario::ParallelAxis::Context, scenario::ParallelAxis::ExpertTensor,
                                   scenario::ParallelAxis::Expert, scenario::ParallelAxis::Data};

/// Parameters of a device reduced over the same replicas: the dense layers' over every replica, a mixture's
/// routed experts' over the replicas holding the same experts.
struct ReplicaShare {
  std::size_t parameters = 0;  ///< held by the device
  std::size_t gradients = 0;   ///< message elements of their gradients
  std::size_t weights = 0;     ///< of their weights, gathered under ZeRO
  std::size_t replicas = 1;
};

ReplicaShare replica_share(const scenario::WirePrecision& wire, double parameters, int replicas) {
  const auto over = static_cast<std::size_t>(replicas);
  return {static_cast<std::size_t>(std::llround(parameters)), wire_elements(parameters, wire.gradients, over),
          wire_elements(parameters, wire.parameters, over), over};
}

/// DualPipe: each stage has two copies, on device d and device p - 1 - d of a replica's pipeline, whose gradients
/// are summed before the update (deepseek-ai/DualPipe's example sums them across the pair): each device sends its
/// partner what it holds of both copies' gradients (its share under ZeRO) and adds what it receives.
struct MirroredCopies {
  S4uTransport& line;
  int partner = 0;
  int zero_stage = 0;

  void sum(const ReplicaShare& share) const {
    const std::size_t elements = share.gradients / (zero_stage > 0 ? share.replicas : 1);
    if (elements == 0) return;
    constexpr int kTag = 1000;  // apart from the passes' tags, 1 to 2 x chunks
    const std::unique_ptr<comm::Pending> sent = line.post_send(partner, comm::Buffer::sized(elements), kTag);
    static_cast<void>(line.post_recv(partner, kTag)->wait());
    static_cast<void>(sent->wait());
  }
};

/// Under DualPipe, `rank`'s partner in summing the two copies' gradients over its replica's pipeline `line`; none
/// under the other schedules.
std::optional<MirroredCopies> mirrored_copies(const TrainingContext& context, int rank, S4uTransport& line) {
  const scenario::ParallelismSpec& plan = context.scenario->training.parallelism;
  if (plan.schedule != models::PipelineSchedule::DualPipe) return std::nullopt;
  const int stage = scenario::coordinates_of(plan, rank)[scenario::ParallelAxis::Pipeline];
  return MirroredCopies{line, plan.pipeline - 1 - stage, context.setup->zero_stage};
}

/// ZeRO 1 and 2 with overlap_parameter_gather: each chunk's first forward pass of a step waits for its buckets,
/// gathered over the `replicas` devices of `rank`'s dense gradients' group; none without.
std::optional<ParameterGathers> parameter_gathers(const TrainingContext& context, int rank, const std::vector<Chunk>& chunks,
                                                  const std::vector<models::PipelinePass>& passes, int replicas) {
  if (!context.scenario->training.overlap_parameter_gather) return std::nullopt;
  const scenario::ParallelismSpec& plan = context.scenario->training.parallelism;
  const scenario::ParallelCoordinates at = scenario::coordinates_of(plan, rank);
  std::vector<const models::ModelProfile*> tables;
  for (const Chunk& chunk : chunks) tables.push_back(&chunk.layers);
  std::optional<ParameterGathers> out;
  out.emplace(context, rank, tables, forward_order(passes),
              GatherGroup{scenario::group_name("parameters", at, kReplicaAxes), scenario::replica_group(plan, rank),
                          scenario::replica_index(plan, at), replicas_meeting(plan, at, "parameters"),
                          static_cast<std::size_t>(replicas)});
  return out;
}

/// The step's update of a share of the parameters over its replicas: with ZeRO 1 and 2 each replica sums and
/// updates its chunk, then the replicas gather the updated chunks (unless the next forward pass gathers them:
/// `gather` false); without, the replicas allreduce the gradients and each updates every parameter. Under DualPipe
/// (`copies` set) the two copies of each stage sum their gradients first.
struct Update {
  const TrainingSetup& setup;
  const Meter& meter;
  const models::Optimizer& optimizer;
  bool gather = true;
  const MirroredCopies* copies = nullptr;

  void reduce(S4uTransport& group, const ReplicaShare& share) const {
    if (share.parameters == 0) return;
    if (setup.zero_stage > 0) {
      setup.collectives.reduce_scatter().run(group, comm::Block::sized(share.gradients));
    } else if (share.replicas > 1) {
      setup.collectives.allreduce().run(group, comm::Block::sized(share.gradients));
    }
    reduced(group, share);
  }
  /// The update once the gradients are reduced (by a gradient stream, during the backward passes).
  void reduced(S4uTransport& group, const ReplicaShare& share) const {
    if (copies != nullptr) copies->sum(share);
    const std::size_t chunk = setup.zero_stage > 0 ? share.replicas : 1;
    charge_compute(meter, optimizer.flops((share.parameters + chunk - 1) / chunk));
    if (setup.zero_stage > 0 && gather) gather_parameters(setup, group, share.weights);
  }
};

}  // namespace

ModelParallelWorker::ModelParallelWorker(TrainingContext context, int rank) : context_(std::move(context)), rank_(rank) {}

void ModelParallelWorker::operator()() {
  const TrainingSetup& setup = *context_.setup;
  const scenario::Scenario& s = *context_.scenario;
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const scenario::ParallelCoordinates at = scenario::coordinates_of(plan, rank_);
  const int replicas = plan.data * plan.context;  // the dense gradients' group: a context group's devices too
  const Meter meter = context_.meter(rank_);
  using scenario::ParallelAxis;
  const ParallelGroups groups(context_, rank_, meter);
  // The tensor group's communication overlapped with compute: a lane of its own, as a gradient stream's.
  std::optional<Meter> overlap_tensor;
  if (s.training.overlap_tensor_communication && plan.tensor > 1) {
    overlap_tensor.emplace(meter.observer(), Lane{meter.lane().host, 2, false, true, Traffic::Tensor});
  }
  // Context parallelism: the ring's transfers beside the attention on a lane of their own.
  const Meter context_lane(meter.observer(), Lane{meter.lane().host, 3, false, true, Traffic::Context});
  std::optional<ContextAttention> attention;
  if (groups.sequence) attention.emplace(context_, **groups.sequence, meter, context_lane);
  // Overlapped with another micro-batch's compute, the expert group's exchanges on a lane of their own.
  std::optional<Meter> exchange_lane;
  std::optional<ExchangeOverlap> exchanges;
  if (s.training.overlap_expert_exchange && groups.experts) {
    exchange_lane.emplace(meter.observer(), Lane{meter.lane().host, 4, false, true, Traffic::Expert});
    exchanges.emplace(ExchangeOverlap{meter, meter.carrying(Traffic::Expert), s.cluster.device_of(rank_).multiprocessors});
  }
  std::vector<Chunk> chunks = device_chunks(context_, rank_, meter, groups, overlap_tensor ? &*overlap_tensor : nullptr,
                                            attention ? &*attention : nullptr, exchange_lane ? &*exchange_lane : nullptr);
  const Held held = held_parameters(chunks, groups.expert_replicas.has_value());
  const ReplicaShare dense = replica_share(s.training.wire, held.parameters - held.experts, replicas);
  const ReplicaShare experts =
      replica_share(s.training.wire, held.experts, scenario::sharing_replicas(plan, scenario::Weights::Experts));
  const std::unique_ptr<models::Optimizer> optimizer = make_optimizer(context_, 0);
  const models::PipelineSchedule schedule = plan.schedule;
  const std::vector<models::PipelinePass> passes =
      models::pipeline_passes(schedule, plan.pipeline, at[ParallelAxis::Pipeline], plan.microbatches, plan.virtual_stages,
                              scenario::expert_overlap_warmup(s.training));
  const bool overlapped = setup.overlap && replicas > 1;
  FinishingPasses finishing = overlapped ? finishing_passes(passes, chunks, setup, s)
                                         : FinishingPasses{std::vector<const models::PipelinePass*>(chunks.size(), nullptr),
                                                           std::vector<std::vector<models::GradientBucket>>(chunks.size()),
                                                           {}};
  std::optional<GradientStream> stream;
  if (overlapped) {
    stream.emplace(context_, rank_, setup.zero_stage > 0 ? setup.collectives.reduce_scatter() : setup.collectives.allreduce(),
                   std::move(finishing.messages), setup.total_iterations, scenario::group_name("gradients", at, kReplicaAxes),
                   scenario::replica_group(plan, rank_), scenario::replica_index(plan, at),
                   replicas_meeting(plan, at, "gradients"));
  }
  std::optional<ParameterGathers> gathers = parameter_gathers(context_, rank_, chunks, passes, replicas);
  std::optional<RoutingLoads> routing;
  if (groups.experts && !s.training.routing.even()) {
    routing.emplace(s.training.routing, setup.profile().shape.experts, setup.profile().shape.top_k, plan.expert, s.seed,
                    scenario::expert_group_of(plan, at));
  }
  PipelineStep step(chunks, *groups.line, schedule == models::PipelineSchedule::DualPipe, finishing,
                    stream ? &*stream : nullptr,
                    gathers ? &*gathers : nullptr, routing ? &*routing : nullptr, exchanges ? &*exchanges : nullptr);
  const std::optional<MirroredCopies> copies = mirrored_copies(context_, rank_, *groups.line);
  const Update update{setup, meter, *optimizer, !gathers, copies ? &*copies : nullptr};
  for (std::int64_t iteration = 1; iteration <= setup.total_iterations; ++iteration) {
    before_iteration(context_, iteration, meter, rank_);
    step.run(passes, step_factor(context_, rank_), iteration);
    if (stream) {
      // The gradients were reduced during the last backward passes.
      stream->wait_for_all(meter);
      update.reduced(*groups.replicas, dense);
    } else {
      update.reduce(*groups.replicas, dense);
    }
    if (groups.expert_replicas) update.reduce(**groups.expert_replicas, experts);
    if (rank_ == 0) context_.observer->on_update();
    if (rank_ == 0 && context_.progress) {
      context_.progress(Progress{iteration, setup.total_iterations, simgrid::s4u::Engine::get_clock()});
    }
  }
  if (overlap_tensor) context_.observer->on_lane_done(overlap_tensor->lane());
  if (attention) context_.observer->on_lane_done(context_lane.lane());
  if (exchange_lane) context_.observer->on_lane_done(exchange_lane->lane());
}

}  // namespace dtsim::runtime
