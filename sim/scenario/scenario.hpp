#pragma once
// The validated scenario: plain structs with units resolved. Nothing past sim/scenario sees YAML.

#include "sim/core/diagnostic.hpp"
#include "sim/core/parameter_values.hpp"
#include "sim/core/config_view.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/config_node.hpp"
#include "sim/scenario/failure_catalog.hpp"
#include "models/device_share.hpp"
#include "models/expert_routing.hpp"
#include "models/op_class.hpp"
#include "models/partitioning_kind.hpp"
#include "models/pipeline_plan.hpp"
#include "topologies/topology_plugin.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::scenario {

using core::Located;

/// Which peak a device's compute time uses (`cluster.device.precision`), and the numerics around its products.
/// The real math dtsim runs is float32 whatever the precision: it times the run, it does not round its values.
enum class ComputePrecision {
  fp32,           ///< single precision: peak_flops
  mixed,          ///< 16-bit math with FP32 accumulation: half_flops; values kept and sent in 16 bits
  bf16,           ///< BF16 products (half_flops), gradients accumulated and reduced in FP32 as Megatron-Core does
  fp16,           ///< FP16 products (half_flops), gradients in FP16 as Megatron-LM's fp16 and apex keep them
  fp8_delayed,    ///< FP8 products, per-tensor scales from an amax history (Transformer Engine's DelayedScaling)
  fp8_current,    ///< FP8 products, per-tensor scales from each tensor's own amax (Float8CurrentScaling)
  fp8_blockwise,  ///< FP8 products, scales per 1x128 and 128x128 block (DeepSeek-V3's; Float8BlockScaling)
  mxfp8,          ///< FP8 products with a hardware-applied scale per 32 values (MXFP8BlockScaling)
  nvfp4,          ///< FP4 products with an FP8 scale per 16 values (NVFP4BlockScaling): fp4_flops
};

/// Every precision whose products take a tensor-core peak (all but fp32).
[[nodiscard]] inline bool reduced(ComputePrecision p) { return p != ComputePrecision::fp32; }
/// The precisions whose products are quantized to 8 bits or fewer, with their scaling kernels.
[[nodiscard]] inline bool quantized(ComputePrecision p) {
  return p != ComputePrecision::fp32 && p != ComputePrecision::mixed && p != ComputePrecision::bf16 &&
         p != ComputePrecision::fp16;
}
/// Whether a framework keeps the gradients of such a run in FP32 (4 bytes): BF16 and FP8 runs under
/// Megatron-Core (megatron/training/arguments.py sets accumulate_allreduce_grads_in_fp32 under --bf16).
[[nodiscard]] inline bool fp32_gradients(ComputePrecision p) {
  return p == ComputePrecision::bf16 || quantized(p);
}

/// How fast one device computes: a step of F FLOPs takes F / (peak_flops * efficiency) seconds.
struct DeviceProfile {
  std::string name;
  core::FlopsPerSecond peak_flops;  ///< FP32
  /// Peak with half-precision inputs (FP16/BF16 tensor cores where the device has them), for `mixed`.
  std::optional<core::FlopsPerSecond> half_flops;
  /// Dense peaks with FP8 and with FP4 inputs (the tensor cores' of Hopper, Blackwell, CDNA3 and later).
  std::optional<core::FlopsPerSecond> fp8_flops;
  std::optional<core::FlopsPerSecond> fp4_flops;
  ComputePrecision precision = ComputePrecision::fp32;
  double efficiency = 1.0;  ///< achieved fraction of peak, in (0, 1]: the dense matrix products' unless told
  /// Sustained fractions of the peak by operation class; an absent one is `efficiency`.
  models::PerOpClass class_efficiency{};
  /// Nothing measured nor declared: `efficiency` is the documented default, and the run says so.
  bool efficiency_assumed = false;

  /// A GPU of the generation that brought FP4 tensor cores (Blackwell, CDNA4; the catalog marks it by
  /// fp4_flops): its tensor cores apply block scales (MXFP8) and take either layout of an FP8 operand, and its
  /// NVLink switches reduce at Blackwell's NVLS efficiency.
  [[nodiscard]] bool fp4_generation() const { return fp4_flops.has_value(); }
  /// The peak a precision's products compute at, if the device has it.
  [[nodiscard]] std::optional<core::FlopsPerSecond> peak_in(ComputePrecision p) const {
    if (p == ComputePrecision::fp32) return peak_flops;
    if (p == ComputePrecision::nvfp4) return fp4_flops;
    return quantized(p) ? fp8_flops : half_flops;
  }
  /// The peak of the precision it computes its products in: half_flops under 16-bit precisions, fp8_flops
  /// under the FP8 recipes, fp4_flops under nvfp4; else (and where the device lacks it) peak_flops.
  [[nodiscard]] core::FlopsPerSecond peak() const { return peak_in(precision).value_or(peak_flops); }
  /// The 16-bit peak, which products a recipe keeps in BF16 run at and model FLOPs utilization is counted
  /// against under every reduced precision (as NVIDIA's and Megatron-Core's published utilizations are).
  [[nodiscard]] core::FlopsPerSecond half_peak() const {
    return reduced(precision) && half_flops ? *half_flops : peak_flops;
  }
  /// The peak an operation class computes at: the product peak of its precision for matrix products and
  /// convolutions; attention's scores and context in 16 bits (Transformer Engine keeps them out of FP8 unless
  /// told); the elementwise operations on the vector units at the FP32 peak.
  [[nodiscard]] core::FlopsPerSecond peak_of(models::OpClass op) const {
    if (op == models::OpClass::Elementwise) return peak_flops;
    return op == models::OpClass::Attention ? half_peak() : peak();
  }
  [[nodiscard]] double efficiency_of(models::OpClass op) const {
    return class_efficiency[static_cast<std::size_t>(op)].value_or(efficiency);
  }
  std::optional<core::BytesPerSecond> memory_bandwidth;
  /// Seconds the device waits on its host per layer and pass (kernel launches, the framework's dispatch),
  /// added to each layer's forward and backward time: what a profiled step shows (`dtsim calibrate TRACE`);
  /// 0 unless given.
  double layer_overhead_s = 0.0;
  std::optional<core::Bytes> memory;
  /// Streaming multiprocessors (a GPU's): a communication kernel running beside a product takes some of them.
  std::optional<int> multiprocessors;
  std::optional<core::Watts> idle_power;
  std::optional<core::Watts> busy_power;
  /// While its messages move (collective kernels copying and reducing); unset, communication_draw() says.
  std::optional<core::Watts> communication_power;

  /// What the device draws while its messages move: communication_power, else midway between idle and busy
  /// power. No per-device measurement of the draw of communication kernels was found published: the midpoint
  /// is an assumption (docs/faults-and-energy.md), and a device may declare its own figure.
  [[nodiscard]] std::optional<core::Watts> communication_draw() const {
    if (communication_power) return communication_power;
    if (!idle_power || !busy_power) return std::nullopt;
    return core::Watts((idle_power->value() + busy_power->value()) / 2.0);
  }

  /// Every figure alike: the same compute times and draws.
  [[nodiscard]] bool operator==(const DeviceProfile&) const = default;
};

using topologies::IntraNode;
using topologies::LinkSpec;

/// `count` nodes of one type from `cluster.nodes`, with the type's figures resolved.
struct NodeGroup {
  std::string type;
  int count = 1;
  int devices = 1;     ///< devices per node
  LinkSpec intra_link; ///< each link inside a node
  IntraNode intra = IntraNode::AllToAll;
  DeviceProfile device;  ///< what each of its devices is
  int nics = 1;          ///< network adapters for the fabric
  bool nvls = false;     ///< the switch reduces (NVLink SHARP): NCCL's single-node allreduce may run on it
};

/// A piecewise-constant factor over simulated time (a SimGrid profile): from each point's time on, its
/// factor; 1 before the first point. With a period, the points repeat every period seconds.
struct Trace {
  struct Point {
    double at_s = 0.0;
    double factor = 1.0;
  };
  std::vector<Point> points;  ///< strictly increasing times
  std::optional<double> period_s;

  [[nodiscard]] bool empty() const { return points.empty(); }
};

/// Links whose bandwidth follows a trace (`link_traces`), named as links.csv names them.
struct LinkTrace {
  std::vector<Located<std::string>> links;
  Trace trace;
};

/// How a message's extra delay over a jittered link is drawn (`link_conditions[].jitter_distribution`).
enum class JitterDistribution {
  Exponential,  ///< of mean `jitter`: queueing delay, mostly short with a long tail
  Uniform,      ///< uniform between 0 and twice `jitter`
};

/// Packet loss and jitter on chosen links (`link_conditions`): the links named, and every link of a class (a sites
/// topology's `wan`).
struct LinkCondition {
  std::vector<Located<std::string>> links;
  Located<std::string> link_class;  ///< empty: none
  double loss = 0.0;                ///< the share of packets lost; 0: none
  int streams = 1;                  ///< parallel TCP flows a transfer is striped over
  double jitter_s = 0.0;            ///< the mean extra delay a message meets on each such link; 0: none
  JitterDistribution jitter_distribution = JitterDistribution::Exponential;
  core::SourcePosition where;

  /// Whether the link called `name`, of class `of_class`, is one of the links this condition is on.
  [[nodiscard]] bool chooses(std::string_view name, std::string_view of_class) const {
    return std::any_of(links.begin(), links.end(), [&](const auto& link) { return link.value == name; }) ||
           (!link_class.value.empty() && link_class.value == of_class);
  }
};

/// Traffic that is not the job's, on chosen links (`background_traffic`): a steady flow of `rate` bytes per
/// second each way (forward only on a one-way link), sharing the links with training.
struct BackgroundTraffic {
  std::vector<Located<std::string>> links;
  double bytes_per_s = 0.0;
};

/// A straggler rule with a random factor on every gradient step (`stragglers[].distribution`).
struct RandomSlowdown {
  std::vector<int> workers;  ///< empty: every worker
  std::string distribution;  ///< a core::builtin_slowdowns() name
  /// The distribution's own parameters, as its registry entry declares them.
  core::ParameterValues parameters;
  bool cluster_wide = false; ///< scope cluster: every worker's n-th step gets the same draw
};

struct ClusterSpec {
  int workers = 0;
  core::SourcePosition workers_at;
  /// A job of several on one cluster (`jobs`): the devices the cluster's topology holds, of which the job's workers
  /// are some; 0 for a scenario of one job, whose topology holds its workers.
  int topology_workers = 0;
  /// `cluster.device`: the servers' device, and every worker's unless a node type or `worker_devices` says otherwise.
  DeviceProfile device;
  /// Per worker rank, the device it runs on.
  std::vector<DeviceProfile> worker_devices;
  std::vector<NodeGroup> nodes;  ///< in declaration order; workers fill them node by node
  /// Per worker rank: the factor `stragglers[].slowdown` puts on its compute time (1 for none; rules that
  /// name the same worker multiply).
  std::vector<double> slowdown;
  /// Rules drawing a factor per gradient step, in declaration order.
  std::vector<RandomSlowdown> random_slowdowns;
  /// Per worker rank, the trace of its device's speed (a fraction of full speed); empty without one.
  std::vector<Trace> speed_traces;
  /// `cluster.servers.count`: parameter-server hosts; unset, one per shard.
  std::optional<int> server_count;
  core::SourcePosition server_count_at;
  /// `cluster.servers.device`: what the servers run on; `device` unless declared.
  DeviceProfile server_device;

  /// Worker `rank`'s device (`device` when worker_devices is not filled in, as in hand-made specs).
  [[nodiscard]] const DeviceProfile& device_of(int rank) const {
    const auto r = static_cast<std::size_t>(rank);
    return r < worker_devices.size() ? worker_devices[r] : device;
  }
  /// Whether every worker runs on the same device model.
  [[nodiscard]] bool uniform_devices() const {
    for (const DeviceProfile& d : worker_devices) {
      if (d.name != device.name) return false;
    }
    return true;
  }
};

enum class NetworkModel {
  AlphaBeta,  ///< textbook: time = latency + size / bandwidth, fair sharing, no TCP effects
  Tcp,        ///< SimGrid's calibrated TCP model (latency x13.01, bandwidth x0.97, window bound)
  /// alpha_beta, with timing-only collectives (ring phases, steps) timed for the whole group at once by the
  /// fluid max-min model (topology/fluid_flows) instead of message by message
  Analytical,
  /// as Analytical, each flow timed as if alone on its route (topology/uncontended_flows): every collective
  /// its algorithm's closed form on its routes' bottleneck, blind to contention
  ClosedForm,
};

struct TopologySpec {
  Located<std::string> kind;
  LinkSpec link;
  NetworkModel network_model = NetworkModel::AlphaBeta;
  core::SourcePosition network_model_at;
  /// The validated `topology` mapping, defaults filled in: the chosen topology reads its own keys from it.
  ConfigNode section;
};

struct ModelSpec {
  Located<std::string> kind;
  /// Whether the model is a timing-only layer table (`profile:<name>`): time and traffic, no data, no values.
  bool timing_only = false;
  /// The validated `model` mapping, defaults filled in: the chosen model reads its own keys from it.
  ConfigNode section;
};

/// What the model trains on: the data set's kind, its own keys (read by the data set's entry), and how its
/// samples are held out and split over the workers, which every data set shares.
struct DataSpec {
  Located<std::string> kind;
  double validation_fraction = 0.2;
  core::SourcePosition validation_fraction_at;
  /// `data.partitioning.kind` (named_values.cpp names each: iid, by_label, dirichlet).
  models::Partitioning partitioning = models::Partitioning::Iid;
  core::SourcePosition partitioning_at;
  double alpha = 1.0;  ///< dirichlet concentration
  /// The validated `data` mapping, defaults filled in: the chosen data set reads its own keys from it.
  ConfigNode section;
};

struct OptimizerSpec {
  Located<std::string> kind;
  double learning_rate = 0.1;
  /// The optimizer's own parameters (`training.optimizer` beside `kind` and `learning_rate`), as its registry
  /// entry declares them; only the optimizer reads them.
  core::ParameterValues parameters;
};

/// Hybrid: dense parameters averaged by allreduce, sparse rows (embeddings) through parameter servers.
enum class Architecture { Allreduce, ParameterServer, Hybrid };

/// Whether the architecture has parameter servers (sharded by key range).
inline bool has_servers(Architecture a) { return a != Architecture::Allreduce; }
/// Whether workers allreduce (all or the dense part of) their gradients.
inline bool has_allreduce(Architecture a) { return a != Architecture::ParameterServer; }

enum class Backend { Auto, Cpu, Cuda };

/// What the collectives cost beyond the network's time (`training.communication_library`).
enum class CommunicationLibrary { None, Nccl };

/// How an expert group moves a mixture's routed tokens (`training.token_dispatcher`): every routed copy to its
/// expert's device, each token once to each machine holding one of its experts, then inside the machine, or every
/// token to every device of the group, the experts' outputs summed back by a reduce-scatter.
enum class TokenDispatcher { AllToAll, DeepEp, AllGather };

/// A degree of `training.parallelism`, for the placement of ranks; what each means is in one table
/// (parallel_axes.hpp), from which coordinates, groups, the schema, the planner, the memory model, the summary and
/// the checks are taken. A new axis is a value here (appended: the enum's order is summary.json's), its degree in
/// ParallelismSpec, and its row there.
enum class ParallelAxis { Tensor, Pipeline, Data, Expert, Context, ExpertTensor };
inline constexpr std::size_t kParallelAxes = 6;

/// How a context group brings every device the keys and values of the whole sequence
/// (`training.parallelism.context_attention`): around a ring beside the blockwise attention, or all gathered.
enum class ContextAttention { Ring, AllGather };

/// How the work is split (`training.parallelism`).
struct ParallelismSpec {
  int data = 1;  ///< data-parallel degree: cluster.workers / (tensor x pipeline)
  core::SourcePosition data_at;
  /// Expert-parallel degree: the routed experts of a mixture spread over this many of the data-parallel
  /// replicas, which exchange their tokens (Megatron-LM's expert_model_parallel_size; it divides `data`). The
  /// experts' gradients are reduced over the data / expert replicas holding the same experts.
  int expert = 1;
  core::SourcePosition expert_at;
  /// Expert-tensor-parallel degree: each routed expert's weight matrices split over this many more of the
  /// data-parallel replicas (Megatron-Core's expert_tensor_parallel_size; data = expert x expert_tensor x the
  /// replicas holding the same expert share).
  int expert_tensor = 1;
  core::SourcePosition expert_tensor_at;
  /// Whether `expert_tensor` is declared: the routed experts then have a grid of their own (their matrices split
  /// over the expert-tensor group alone, each tensor rank dispatching its own share of the tokens); absent, they
  /// are split over the tensor group as a dense block is.
  bool expert_tensor_declared = false;
  /// Context-parallel degree: every sequence's tokens split over this many devices (two chunks each, for
  /// causal balance), which exchange keys and values for attention; their gradients reduced with the replicas'.
  int context = 1;
  core::SourcePosition context_at;
  ContextAttention context_attention = ContextAttention::Ring;
  core::SourcePosition context_attention_at;
  /// `all_to_all`: the algorithm an expert group exchanges its tokens by.
  core::Located<std::string> all_to_all;
  int tensor = 1;
  core::SourcePosition tensor_at;
  bool sequence_parallel = false;
  core::SourcePosition sequence_parallel_at;
  /// The degrees over the ranks, innermost first: by default a tensor group is consecutive ranks (one node),
  /// then the stages of a pipeline, then the replicas. The context, expert-tensor and expert axes, where they are
  /// not listed, come right after the tensor axis (an expert group's all-to-alls inside a node where it fits).
  std::vector<ParallelAxis> placement{ParallelAxis::Tensor, ParallelAxis::Pipeline, ParallelAxis::Data};
  core::SourcePosition placement_at;
  int zero = 0;  ///< ZeRO stage: 1 optimizer state, 2 also gradients, 3 also parameters partitioned
  core::SourcePosition zero_at;
  int pipeline = 1;  ///< stages
  core::SourcePosition pipeline_at;
  int microbatches = 1;
  core::SourcePosition microbatches_at;
  int virtual_stages = 1;  ///< model chunks per device (interleaved_1f1b)
  core::SourcePosition virtual_stages_at;
  /// `schedule` (named_values.cpp names each: gpipe, 1f1b, interleaved_1f1b, zero_bubble).
  models::PipelineSchedule schedule = models::PipelineSchedule::OneForwardOneBackward;
  core::SourcePosition schedule_at;
  /// `pipeline_split`, `pipeline_split_counts` and `pipeline_layout`: how the layers are cut into the (virtual)
  /// stages (balanced by FLOPs when absent).
  models::StageSplit stage_split;
  core::SourcePosition stage_split_at;
  core::SourcePosition stage_split_counts_at;

  /// Whether the model or its sequences are split over devices (the degree of an axis other than the replicas'
  /// above 1: tensor, pipeline, expert, context, expert_tensor), rather than held whole by every replica. Read from
  /// the axes' table (parallel_axes.cpp).
  [[nodiscard]] bool is_model_parallel() const;
};

/// Bytes a value takes on the wire (`training.communication_precision`), resolved from `auto`.
struct WirePrecision {
  int gradients = 4;
  int parameters = 4;
  int activations = 4;
  /// The tokens sent to their experts, and backward their outputs' gradients (DeepSeek-V3 dispatches both in
  /// FP8 and combines in BF16); those coming back travel as `activations`.
  int dispatch = 4;
  core::SourcePosition at;  ///< the section, for errors
  bool declared = false;    ///< some value other than auto was given
};

struct TrainingSpec {
  ParallelismSpec parallelism;
  WirePrecision wire;
  /// Refuse, before simulating, a run whose devices cannot hold their share (`training.check_memory`).
  bool check_memory = true;
  core::SourcePosition check_memory_at;
  /// Gradient buckets allreduced during the backward pass (`training.overlap`); unset: decided by the run.
  std::optional<bool> overlap;
  core::SourcePosition overlap_at;
  /// ZeRO 1 and 2: the parameters gathered during the next forward pass (`training.overlap_parameter_gather`).
  bool overlap_parameter_gather = false;
  core::SourcePosition overlap_parameter_gather_at;
  /// Expert parallelism: a forward pass and the backward pass after it run interleaved, each token exchange of
  /// one beside the other's compute (`training.overlap_expert_exchange`).
  bool overlap_expert_exchange = false;
  core::SourcePosition overlap_expert_exchange_at;
  /// Sequence parallelism: the tensor group's gathers and reduce-scatters run while the products beside them
  /// compute (`training.overlap_tensor_communication`).
  bool overlap_tensor_communication = false;
  core::SourcePosition overlap_tensor_communication_at;
  double bucket_bytes = 25.0 * 1024 * 1024;
  /// `training.recomputation` (named_values.cpp names each: none, selective, full).
  models::Recomputation recomputation = models::Recomputation::None;
  core::SourcePosition recomputation_at;
  /// `training.recompute_modules`: the models::RecomputedModule bits selective recomputation reruns (core
  /// attention alone when absent); `recompute_modules_declared` whether the scenario lists them.
  unsigned recompute_modules = static_cast<unsigned>(models::RecomputedModule::CoreAttention);
  bool recompute_modules_declared = false;
  core::SourcePosition recompute_modules_at;
  /// `training.token_dispatcher`.
  TokenDispatcher token_dispatcher = TokenDispatcher::AllToAll;
  core::SourcePosition token_dispatcher_at;
  /// `training.routing`: how a mixture's router spreads each micro-batch's tokens over the experts.
  models::RoutingSpec routing;
  core::SourcePosition routing_at;
  /// `training.communication_library`: none (the network's time alone) or nccl (comm::LibraryCollective).
  CommunicationLibrary communication_library = CommunicationLibrary::None;
  Backend backend = Backend::Auto;
  core::SourcePosition backend_at;
  /// Samples per data-parallel replica and step (a replica is tensor x pipeline workers; one worker without
  /// them), whether written as `batch.per_worker` or derived from `batch.global`.
  int batch_per_worker = 0;
  bool batch_declared_global = false;  ///< `batch.global` was written, not `batch.per_worker`
  core::SourcePosition batch_at;
  OptimizerSpec optimizer;
  Located<std::string> sync_strategy;
  /// The strategy's own parameters (`training.sync` beside `strategy`), as its registry entry declares them;
  /// only the strategy reads them.
  core::ParameterValues sync_parameters;
  Architecture architecture = Architecture::Allreduce;
  core::SourcePosition architecture_at;
  Located<std::string> allreduce_algorithm;
  int shards = 1;  ///< parameter servers the parameters are split over by key range
  core::SourcePosition shards_at;
  /// Stop conditions: training ends at the first one reached; at least one is set.
  std::optional<std::int64_t> epochs;
  std::optional<std::int64_t> iterations;
  /// A timing-only run's budget (training.stop.tokens or samples): a few iterations are simulated and the whole
  /// run, as many iterations as the budget takes, projected from them.
  std::optional<double> tokens;
  std::optional<double> samples;
  core::SourcePosition budget_at;
  /// A timing-only run's epochs (training.stop.epochs) over a data set of this many samples or tokens
  /// (training.stop.samples_per_epoch, tokens_per_epoch): a budget of epochs x each epoch's iterations.
  std::optional<double> samples_per_epoch;
  std::optional<double> tokens_per_epoch;
  core::SourcePosition epoch_size_at;
  [[nodiscard]] bool sized_epochs() const { return samples_per_epoch || tokens_per_epoch; }
  /// Whether the run has a budget to project: tokens, samples, or sized epochs.
  [[nodiscard]] bool has_budget() const { return tokens || samples || (epochs && sized_epochs()); }
  /// The scenario key of the budget ("training.stop.tokens", "samples" or "epochs").
  [[nodiscard]] std::string budget_key() const {
    return tokens ? "training.stop.tokens" : samples ? "training.stop.samples" : "training.stop.epochs";
  }
  /// Real-math runs: stop at the first evaluation whose validation loss is at or below `stop_loss`, or whose
  /// accuracy is at or above `stop_accuracy` (training.stop.target_loss, target_accuracy); epochs or iterations
  /// bound the run.
  std::optional<double> stop_loss;
  std::optional<double> stop_accuracy;
  core::SourcePosition stop_target_at;
  [[nodiscard]] bool stops_at_target() const { return stop_loss || stop_accuracy; }
  /// Evaluate every this many iterations; 0 means once per epoch.
  int evaluate_every = 0;
};

/// A worker that fails at a given time (`failures.events`).
struct WorkerFailure {
  int worker = 0;
  double at_s = 0.0;
  std::optional<double> repair_s;  ///< unset: a spare replaces it (allreduce) or it leaves (parameter server)
  core::SourcePosition where;
};

/// A parameter-server shard that fails at a given time (`failures.events` of kind server).
struct ServerFailure {
  int shard = 0;
  double at_s = 0.0;
  std::optional<double> repair_s;  ///< unset: a spare takes over after the restart
  core::SourcePosition where;
};

/// A link that fails at a given time (`failures.events` of kind link), named as links.csv names it.
struct LinkFailure {
  Located<std::string> link;       ///< or the switch, when `whole_switch`
  double at_s = 0.0;
  std::optional<double> repair_s;  ///< unset: down for good
  bool whole_switch = false;       ///< a switch fails (kind: switch): every link to it goes down with it
};

/// `failures`: which workers fail when, and how training recovers.
struct FailureSpec {
  bool enabled = false;
  core::SourcePosition where;
  std::vector<WorkerFailure> events;  ///< in declaration order
  std::vector<LinkFailure> link_events;  ///< in declaration order
  std::vector<ServerFailure> server_events;  ///< in declaration order
  /// `random`: every listed worker (all when empty) fails after exponential times of this mean.
  std::optional<double> mtbf_s;
  std::vector<int> random_workers;
  std::optional<double> random_repair_s;
  core::SourcePosition random_at;
  /// `checkpoint`: iterations between checkpoints (unset: a rollback restarts from the beginning).
  std::optional<std::int64_t> checkpoint_every;
  double storage_bytes_per_s = 0.0;
  core::SourcePosition checkpoint_at;
  /// `checkpoint.async`: the job waits only while each device copies its share to host memory at this rate;
  /// the checkpoint is written to storage in the background.
  std::optional<double> host_bytes_per_s;
  double restart_s = 0.0;
  bool elastic = false;
  core::SourcePosition elastic_at;
  /// `catalog` and `components`: failures by component kind, the catalog's kinds first and then declared ones,
  /// a declared kind replacing the catalog's (failure_catalog.hpp). A budget's run projects them.
  std::optional<std::string> catalog;
  std::vector<ComponentFailures> components;
  core::SourcePosition components_at;  ///< the first of `catalog` and `components`
  double detection_s = 0.0;
  /// A budget's projected run: hot spare nodes, and whether it shrinks when none is free.
  int spares = 0;
  bool shrink = false;
  core::SourcePosition shrink_at;
  /// Runs drawn from the seed, seed + 1, ...: their spread is reported beside the first.
  int draws = 1;
  /// The first of `spares`, `shrink` and `draws`, and its key.
  core::SourcePosition projected_at;
  std::string projected_key;
  [[nodiscard]] bool by_component() const { return !components.empty(); }
};

/// Which optional result files a run writes, and how far its timeline reaches.
struct OutputChoices {
  bool trace = false;
  std::int64_t trace_iterations = 10;  ///< 0: all
  std::int64_t trace_hosts = 64;       ///< 0: all
  std::int64_t trace_events = 400'000;
  bool report = false;
};

/// `energy`: what a run's power draw costs. Device powers come from the device profiles.
struct EnergySpec {
  bool enabled = false;
  core::SourcePosition where;
  std::optional<double> carbon_g_per_kwh;
  std::optional<double> price_per_kwh;
  std::optional<double> price_per_device_hour;
  std::string currency;
  /// Drawn by every node whatever its devices do (CPUs, memory, fans); a node is a worker without
  /// cluster.nodes, else one node of cluster.nodes (and one per server).
  std::optional<core::Watts> node_static_power;
  std::optional<core::Watts> link_idle_power;  ///< per link direction
  std::optional<core::Watts> link_busy_power;  ///< per link direction at full bandwidth
};

struct Scenario;

/// Where a job's devices come from (`jobs[].placement`, `scheduler.placement`; cluster_placement.hpp).
enum class JobPlacement { packed, spread, random, explicit_hosts };
/// Which waiting job starts when devices free up (`scheduler.policy`; job_queue.hpp).
enum class SchedulePolicy { fifo, backfill };
/// What a waiting job may do to running jobs of lower priority (`scheduler.preemption`; cluster_run.hpp).
enum class Preemption { off, checkpoint };

/// One of several jobs sharing the cluster (`jobs`): its own scenario (the document with the job's sections in
/// place of the top level's and cluster.workers its device count), when it arrives, where it goes, its rank in
/// the queue.
struct JobSpec {
  std::string name;
  core::SourcePosition where;
  std::size_t index = 0;  ///< its place in `jobs`
  int workers = 0;
  double arrival_s = 0.0;
  JobPlacement placement = JobPlacement::packed;
  /// explicit placement: the hosts, in rank order
  std::vector<Located<std::string>> hosts;
  /// higher starts first; equal priorities start in arrival order, then declaration order
  int priority = 0;
  /// what the job declares it needs (Slurm's --time): backfill's reservations read it
  std::optional<double> time_limit_s;
  std::shared_ptr<const Scenario> scenario;
};

/// `scheduler`: how the queue of `jobs` is served, and the placement of jobs that name none.
struct SchedulerSpec {
  SchedulePolicy policy = SchedulePolicy::fifo;
  JobPlacement placement = JobPlacement::packed;
  Preemption preemption = Preemption::off;
  /// Preemption: the storage a stopped job writes its checkpoint to and reads it back from, bytes per second.
  double checkpoint_bytes_per_s = 0.0;
};

struct Scenario {
  std::string name;
  std::string description;
  /// The sweep point this scenario is ("staleness=1,workers=8"); empty without a sweep.
  std::string sweep_point;
  /// Each sweep axis's value at this point, as written, in the axes' order; empty without a sweep.
  std::vector<std::string> sweep_values;
  std::filesystem::path source;
  std::uint64_t seed = 0;
  ClusterSpec cluster;
  TopologySpec topology;
  ModelSpec model;
  DataSpec data;
  TrainingSpec training;
  /// Bandwidth traces on links, in declaration order.
  std::vector<LinkTrace> link_traces;
  std::vector<LinkCondition> link_conditions;
  std::vector<BackgroundTraffic> background_traffic;
  FailureSpec failures;
  EnergySpec energy;
  /// Result folder from `outputs.folder`; the command line and out/<name> apply when absent.
  std::optional<std::filesystem::path> output_folder;
  /// Where `outputs.folder` is written; the scenario file alone when it is absent.
  core::SourcePosition output_folder_at;
  /// `outputs.target_loss`: the validation loss whose first reaching is reported.
  std::optional<double> target_loss;
  core::SourcePosition target_loss_at;
  /// `outputs.target_accuracy`: the validation accuracy whose first reaching is reported.
  std::optional<double> target_accuracy;
  core::SourcePosition target_accuracy_at;
  /// `outputs.trace`, `outputs.report`: trace.json and report.html beside the other results.
  OutputChoices outputs;
  /// This scenario as dtsim read it (includes merged, this sweep point's values set, defaults filled, file
  /// names absolute): what `dtsim explain` prints and summary.json echoes. Null for a scenario built by hand.
  ConfigNode resolved;
  /// Several jobs on the cluster (cluster_run.hpp); empty: the scenario is one job.
  std::vector<JobSpec> jobs;
  SchedulerSpec scheduler;

  /// Whether nothing sets one worker or one link apart from the others over time: equal workers on one device
  /// model, no random or traced slowdowns, no link traces, link failures or background traffic (worker
  /// failures aside). Where it holds, ranks that enter a collective together leave it together.
  [[nodiscard]] bool unperturbed() const {
    const bool equal_workers = std::all_of(cluster.slowdown.begin(), cluster.slowdown.end(),
                                           [](double factor) { return factor == 1.0; });
    return equal_workers && cluster.uniform_devices() && cluster.random_slowdowns.empty() &&
           cluster.speed_traces.empty() && link_traces.empty() && link_conditions.empty() &&
           failures.link_events.empty() && background_traffic.empty();
  }
  /// Whether its failures are projected over a budget's whole run (metrics/failure_projection.hpp) rather than
  /// simulated: the iterations it simulates then run without them.
  [[nodiscard]] bool failures_projected() const { return failures.enabled && training.has_budget(); }
};

std::string_view to_string(NetworkModel model);
std::string_view to_string(Architecture architecture);
std::string_view to_string(Backend backend);
std::string_view to_string(models::PipelineSchedule schedule);
std::string_view to_string(models::Recomputation recomputation);
std::string_view to_string(TokenDispatcher dispatcher);
std::string_view to_string(models::RoutingDistribution distribution);
std::string_view to_string(ContextAttention attention);
std::string_view to_string(CommunicationLibrary library);
std::string_view to_string(models::Partitioning partitioning);
std::string_view to_string(ComputePrecision precision);
std::string_view to_string(JobPlacement placement);
std::string_view to_string(SchedulePolicy policy);
std::string_view to_string(Preemption preemption);
std::string_view to_string(JitterDistribution distribution);

}  // namespace dtsim::scenario
