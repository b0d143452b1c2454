#include "sim/scenario/scenario_schema.hpp"

#include "sim/scenario/config_node.hpp"
#include "sim/scenario/failure_catalog.hpp"
#include "sim/core/slowdown_distribution.hpp"
#include "sim/scenario/named_values.hpp"
#include "sim/scenario/parallel_axes.hpp"
#include "sim/scenario/plugin_schema.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace dtsim::scenario {
namespace {

constexpr std::int64_t kMaxCount = 1'000'000'000;
// The largest cluster simulated end to end: 65,536 workers ran one timing-only iteration in 67 s and 9.3 GiB
// on a 2-core machine (bench/large_cluster.sh); a million would need some 150 GB.
constexpr std::int64_t kMaxWorkers = 65'536;
constexpr double kInf = std::numeric_limits<double>::infinity();


SchemaNode link(std::string key, std::string description) {
  return topologies::link_schema(std::move(key), std::move(description));
}

std::vector<SchemaNode> device_fields() {
  return {
      quantity("peak_flops", Unit::Flops, "peak compute rate; needed unless `name` is a known device")
          .exclusive_min()
          .for_example("\"15.7TFLOPS\""),
      quantity("half_flops", Unit::Flops,
               "dense peak rate with FP16/BF16 inputs (tensor cores), used by precision: mixed, bf16 and fp16, and by "
               "the products the FP8 and FP4 recipes keep in 16 bits")
          .exclusive_min()
          .for_example("\"125TFLOPS\""),
      quantity("fp8_flops", Unit::Flops, "dense peak rate with FP8 inputs, used by the FP8 precisions")
          .exclusive_min()
          .for_example("\"1979TFLOPS\""),
      quantity("fp4_flops", Unit::Flops, "dense peak rate with FP4 inputs, used by precision: nvfp4")
          .exclusive_min()
          .for_example("\"9PFLOPS\""),
      choice_of("precision", "precision", "which peak compute time uses", choices_of(compute_precisions()))
          .fallback("fp32"),
      number("efficiency", 0.0, 1.0,
             "sustained fraction of peak for every operation class: a built-in device's own by class (`dtsim list "
             "devices`), else 0.5 (the documented default, which the run notes) unless given")
          .exclusive_min(),
      map_of("efficiencies",
             "sustained fraction of the peak by operation class (a layer table's layers each have "
             "one); a class not given takes `efficiency`",
             {
                 number("gemm", 0.0, 1.0, "dense matrix products (linear layers)").exclusive_min(),
                 number("attention", 0.0, 1.0, "attention scores and context").exclusive_min(),
                 number("convolution", 0.0, 1.0, "convolutions").exclusive_min(),
                 number("elementwise", 0.0, 1.0, "normalizations, additions, activations, lookups (at the FP32 peak)")
                     .exclusive_min(),
             }),
      quantity("memory_bandwidth", Unit::Bandwidth, "memory bandwidth").exclusive_min().for_example("\"900GB/s\""),
      quantity("layer_overhead", Unit::Duration,
               "time the device waits on its host per layer and pass (kernel launches, the framework's dispatch), "
               "added to each layer's forward and backward time; `dtsim calibrate TRACE` fits it to a profiled step")
          .for_example("\"20us\""),
      quantity("memory", Unit::Size, "memory size").exclusive_min().for_example("\"32GiB\""),
      integer("multiprocessors", 1, 100'000,
              "streaming multiprocessors (a GPU's): those a communication kernel beside a product takes slow it "
              "(training.overlap_tensor_communication); absent on a declared device: none taken"),
      quantity("idle_power", Unit::Power, "power drawn while idle").for_example("\"50W\""),
      quantity("busy_power", Unit::Power, "power drawn at full load").for_example("\"300W\""),
      quantity("communication_power", Unit::Power,
               "power drawn while its messages move (default: midway between idle_power and busy_power)")
          .for_example("\"175W\""),
  };
}

SchemaNode cluster() {
  std::vector<SchemaNode> device = device_fields();
  device.insert(device.begin(), text("name", "a built-in device (cpu, p100, v100, a100, h100, h200), one from "
                                             "`cluster.devices`, or a label for the device declared here")
                                    .fallback("custom"));
  return map_of(
      "cluster", "the machines that train",
      {
          integer("workers", 1, kMaxWorkers, "number of simulated workers, one per device").require(),
          map_of("device", "the device every worker runs on", std::move(device)).require(),
          dictionary_of("devices", "named device profiles that `cluster.device.name`, node types and "
                                   "`worker_devices` can refer to; one named like a built-in device refines it; a "
                                   "catalog file can be included",
                        map_of("<name>", "one device profile", device_fields())),
          list_of("worker_devices", "workers on another device than `cluster.device` (a mixed cluster without nodes)",
                  map_of("[]", "one group of workers",
                         {
                             text("device", "a built-in device or one from `cluster.devices`").require(),
                             list_of("workers", "their ranks", integer("[]", 0, kMaxWorkers, "a worker rank"))
                                 .require(),
                         })),
          dictionary_of("node_types", "kinds of node: how many devices each holds and how they are joined",
                        map_of("<name>", "one node type",
                               {
                                   integer("devices", 1, 1024, "devices per node").require(),
                                   text("device", "the device of each of its workers: a built-in device or one from "
                                                  "`cluster.devices`; `cluster.device` when absent"),
                                   choice_of("intra", "intra-node fabric", "how the devices of a node are joined",
                                             {{"all_to_all", "a link between every pair of devices"},
                                              {"switch", "each device linked to the node's switch (NVSwitch)"},
                                              {"cube_mesh", "8 devices as DGX-1's NVLink hybrid cube-mesh (pairs of "
                                                            "quads; connections of two links get twice the bandwidth)"}})
                                       .fallback("all_to_all"),
                                   link("intra_link", "each link inside the node (per NVLink connection for cube_mesh)")
                                       .require(),
                                   integer("nics", 1, 64,
                                           "network adapters into the fabric: with `topology.nic: per_node` the "
                                           "node's port carries nics x the fabric link's bandwidth")
                                       .fallback("1"),
                                   boolean("nvls",
                                           "the switch reduces (NVLink SHARP, NVSwitch 3 and later): NCCL's single-node "
                                           "allreduce runs on it (NVLS) when that is faster than its ring; needs "
                                           "`intra: switch`")
                                       .fallback("false"),
                               })),
          list_of("nodes", "how many nodes of each type",
                  map_of("[]", "one group of nodes",
                         {
                             text("type", "a key of `cluster.node_types`, or a built-in node: dgx1, dgx2, dgx_a100, "
                                          "dgx_h100")
                                 .require(),
                             integer("count", 1, kMaxWorkers, "number of such nodes").fallback("1"),
                         })),
          map_of("servers", "parameter-server hosts, attached to the topology's host ports after the workers",
                 {
                     integer("count", 1, 1024,
                             "number of server hosts; one per `training.architecture.shards` when absent"),
                     text("device", "the servers' device: a built-in device or one from `cluster.devices`; "
                                    "`cluster.device` when absent"),
                 }),
      });
}

SchemaNode topology(const Registries& registries) {
  std::vector<SchemaNode> keys = plugin_keys(registries.topologies, "kind", "topology", "the shape of the network", "");
  keys.front().required = true;
  keys.insert(keys.begin() + 1,
              {link("link", "the link class of every worker link").require(),
               choice_of("network_model", "network model", "how SimGrid times messages", choices_of(network_models()))
                   .fallback("alpha_beta")});
  return map_of("topology", "how the workers are connected", std::move(keys));
}

SchemaNode model(const Registries& registries) {
  std::vector<SchemaNode> keys = plugin_keys(registries.models, "kind", "model", "the model family", "");
  keys.front().required = true;
  return map_of("model", "what is trained", std::move(keys));
}

SchemaNode data(const Registries& registries) {
  std::vector<SchemaNode> keys = plugin_keys(registries.data_sets, "kind", "data kind", "where the samples come from", "");
  keys.front().required = true;
  keys.push_back(number("validation_fraction", 0.0, 0.9, "share of samples held out for validation").fallback("0.2"));
  keys.push_back(map_of("partitioning", "how training samples are split over workers",
                        {
                            choice_of("kind", "partitioning", "the split", choices_of(partitionings()))
                                .fallback("iid"),
                            number("alpha", 0.0, kInf, "Dirichlet concentration: small, few labels per worker")
                                .exclusive_min()
                                .require()
                                .when("kind", {"dirichlet"}),
                        }));
  return map_of("data", "what the model is trained on; needed by every model but the timing-only profiles",
                std::move(keys));
}

/// Every registered name with its description, in registration order.
template <class Registry>
std::vector<Choice> registered_choices(const Registry& registry) {
  std::vector<Choice> choices;
  for (const std::string& name : registry.registration_order()) choices.push_back({name, registry.find(name).description});
  return choices;
}

SchemaNode sync(const sync::SyncRegistry& strategies) {
  return map_of("sync", "when workers exchange and apply updates",
                plugin_keys(strategies, "strategy", "sync strategy", "the synchronization strategy", "bsp"));
}

/// The optimizer's kind, the learning rate every optimizer has, then each optimizer's own keys.
std::vector<SchemaNode> optimizer_keys(const models::OptimizerRegistry& optimizers) {
  std::vector<SchemaNode> keys = plugin_keys(optimizers, "kind", "optimizer", "the optimizer", "sgd");
  keys.insert(keys.begin() + 1, number("learning_rate", 0.0, 1e6, "step size").exclusive_min().require());
  return keys;
}

std::vector<core::Choice> wire_precisions() {
  return {{"auto", "16 bits where the device computes in a reduced precision (timing-only models; gradients 32 under "
                   "bf16 and the FP8 and FP4 recipes, as Megatron-Core reduces them), else 32"},
          {"fp32", "4 bytes a value"},
          {"bf16", "2 bytes a value"},
          {"fp16", "2 bytes a value"}};
}

/// Values that may travel in FP8: the tokens dispatched to experts (DeepSeek-V3's and DeepEP's dispatch) and the
/// parameters gathered under ZeRO (Megatron-Core's fp8_param_gather).
std::vector<core::Choice> fp8_wire_precisions(std::string automatic) {
  std::vector<core::Choice> out = wire_precisions();
  if (!automatic.empty()) out.front() = {"auto", std::move(automatic)};
  out.push_back({"fp8", "1 byte a value (its scales, a few bytes a block of values, not counted)"});
  return out;
}

/// The parallel axes' names, each with what its groups are.
std::vector<core::Choice> axis_choices() {
  std::vector<core::Choice> out;
  for (const AxisEntry& entry : parallel_axes()) out.push_back({std::string(entry.name), std::string(entry.description)});
  return out;
}

/// An axis's degree key, as its row in the axes' table declares it: the data axis's has no default (what the others
/// leave of the workers), the others' is 1.
SchemaNode degree_key(ParallelAxis axis) {
  const AxisEntry& entry = axis_entry(axis);
  SchemaNode node = integer(std::string(entry.name), 1, entry.most, std::string(entry.key_description));
  // The data degree defaults to what the others leave; the expert-tensor degree, declared, puts the routed experts
  // on a grid of their own, so that its absence is not its default.
  if (axis == ParallelAxis::Data || axis == ParallelAxis::ExpertTensor) return node;
  return std::move(node).fallback("1");
}

/// training.parallelism: the degrees, their placement, ZeRO and the pipeline's schedule. The keys keep the order the
/// schema and the reference have always had (the data, expert and context degrees first, the tensor degree before
/// sequence_parallel, the pipeline's before zero); an axis added since has its degree after the pipeline's.
SchemaNode parallelism(const comm::CollectiveRegistry& all_to_all) {
  std::vector<SchemaNode> keys{
      degree_key(ParallelAxis::Data),
      degree_key(ParallelAxis::Expert),
      degree_key(ParallelAxis::Context),
      choice_of("context_attention", "context attention", "how a context group shares its keys and values",
                choices_of(context_attentions()))
          .fallback("ring"),
      choice_of("all_to_all", "all-to-all algorithm",
                "how an expert group exchanges its tokens (training.parallelism.expert above 1)",
                registered_choices(all_to_all))
          .fallback("direct"),
      degree_key(ParallelAxis::Tensor),
      boolean("sequence_parallel",
              "split the norms' work by tokens over the tensor group too, which then reduce-scatters "
              "and allgathers instead of allreducing")
          .fallback("false"),
      list_of("placement",
              "the order of the degrees over the worker ranks, innermost (consecutive ranks) first; "
              "[tensor, pipeline, data] when absent; expert, where not listed, right after tensor",
              choice_of("[]", "degree", "a parallelism degree", axis_choices()))
          .for_example("[tensor, pipeline, data]"),
      degree_key(ParallelAxis::Pipeline),
      integer("zero", 0, 3,
              "ZeRO stage over the data-parallel group: 1 partitions the optimizer state, 2 also "
              "the gradients, 3 also the parameters (timing-only models)")
          .fallback("0"),
      integer("microbatches", 1, 1'000'000,
              "micro-batches each batch is split into on its way through the pipeline; without model "
              "parallelism, gradient accumulation (timing-only models)")
          .fallback("1"),
      integer("virtual_stages", 1, 1024,
              "model chunks per device under schedule: interleaved_1f1b (chunk c of device d is "
              "stage c x pipeline + d)")
          .fallback("1"),
      choice_of("schedule", "pipeline schedule", "the order of the micro-batches' passes",
                choices_of(pipeline_schedules()))
          .fallback("1f1b"),
      choice_of("pipeline_split", "pipeline split",
                "how the layers are cut into the pipeline's (virtual) stages; flops when absent",
                choices_of(stage_splits())),
      list_of("pipeline_split_counts",
              "under pipeline_split: even, the parts outside the transformer blocks counted as one block each",
              choice_of("[]", "part", "a part counted as a block", choices_of(stage_split_counts())))
          .for_example("[embedding, loss]"),
      text("pipeline_layout",
           "the layers of each (virtual) stage as Megatron-Core's pipeline_model_parallel_layout spells them: E the "
           "embedding, t a transformer block, L the output layer and the loss, | between stages, (...)*n and x*n "
           "repeats")
          .for_example("\"Et|(tt|)*30L\""),
  };
  const auto after_pipeline = std::find_if(keys.begin(), keys.end(), [](const SchemaNode& key) {
    return key.key == axis_entry(ParallelAxis::Pipeline).name;
  }) + 1;
  std::vector<SchemaNode> added;
  for (const AxisEntry& entry : parallel_axes()) {
    const auto named = [&](const SchemaNode& key) { return key.key == entry.name; };
    const bool listed = std::any_of(keys.begin(), keys.end(), named);
    if (!listed) added.push_back(degree_key(entry.axis));
  }
  keys.insert(after_pipeline, added.begin(), added.end());
  return map_of("parallelism",
                "how the work is split over the workers: data x tensor x pipeline (x context) = cluster.workers",
                std::move(keys));
}

/// training.communication_precision: the bytes each value takes on the wire.
SchemaNode communication_precision() {
  return map_of("communication_precision",
      "the precision values travel in, and so the bytes each message takes (timing-only models; values "
      "trained for real travel as fp32)",
      {
          choice_of("gradients", "precision", "gradients averaged or reduce-scattered", wire_precisions())
              .fallback("auto"),
          choice_of("parameters", "precision", "parameters gathered (ZeRO)", fp8_wire_precisions(""))
              .fallback("auto"),
          choice_of("activations", "precision", "activations and their gradients between pipeline stages",
                    wire_precisions())
              .fallback("auto"),
          choice_of("dispatch", "precision",
                    "tokens sent to their experts, and backward their outputs' gradients (returning ones travel as "
                    "the activations)",
                    fp8_wire_precisions("as the activations travel"))
              .fallback("auto"),
      });
}

/// training.architecture: how updates travel.
SchemaNode architecture(const comm::CollectiveRegistry& allreduce) {
  const std::vector<std::string> with_allreduce{"allreduce", "hybrid"};
  const std::vector<std::string> with_servers{"parameter_server", "hybrid"};
  return map_of("architecture", "how updates travel",
      {
          choice_of("kind", "architecture", "the communication architecture", choices_of(architectures()))
              .fallback("allreduce"),
          choice_of("algorithm", "allreduce algorithm", "the allreduce algorithm",
                    registered_choices(allreduce))
              .fallback("ring")
              .when("kind", with_allreduce),
          integer("shards", 1, 1024, "parameter servers, each holding one contiguous range of the parameters")
              .fallback("1")
              .when("kind", with_servers),
      });
}

/// When training ends: iterations or epochs, a budget a timing-only run projects, or a target a real-math run
/// reaches.
SchemaNode stop() {
  return map_of(
             "stop", "when training ends: the first condition reached",
             {
                 integer("epochs", 1, kMaxCount, "passes over the training data"),
                 integer("iterations", 1, kMaxCount, "iterations"),
                 number("tokens", 1.0, 1e18,
                        "timing-only runs: tokens to train on; a few iterations are simulated and the whole run "
                        "projected (days, device-hours, energy, cost)")
                     .whole()
                     .for_example("2000000000000"),
                 number("samples", 1.0, 1e18,
                        "timing-only runs: samples (sequences) to train on, projected as tokens are")
                     .whole()
                     .for_example("500000000"),
                 number("samples_per_epoch", 1.0, 1e18,
                        "timing-only runs: the data set's samples, which makes epochs a budget projected as tokens "
                        "are (each epoch's iterations rounded up)")
                     .whole()
                     .for_example("1281167"),
                 number("tokens_per_epoch", 1.0, 1e18,
                        "timing-only runs: the data set's tokens, which makes epochs a budget projected as tokens "
                        "are (each epoch's iterations rounded up)")
                     .whole()
                     .for_example("1000000000"),
                 number(
                     "target_loss", 0.0, kInf,
                     "real-math runs: stop at the first evaluation whose validation loss is at or below it (epochs or "
                     "iterations bound the run)")
                     .exclusive_min(),
                 number(
                     "target_accuracy", 0.0, 1.0,
                     "real-math classifiers: stop at the first evaluation whose validation accuracy is at or above it")
                     .exclusive_min(),
                 quantity("sim_time", Unit::Duration, "simulated time budget").exclusive_min().plan(),
             })
      .require()
      .alternatives();
}

SchemaNode training(const Registries& registries) {
  return map_of(
      "training", "the training recipe",
      {
          parallelism(registries.collectives.all_to_all),
          communication_precision(),
          boolean("check_memory", "stop before simulating when a device cannot hold its share of the model, its "
                                  "gradients, optimizer state and activations; false simulates anyway and reports the "
                                  "need")
              .fallback("true"),
          boolean("overlap",
                  "start each bucket of gradients' allreduce as soon as the backward pass has computed it, while the "
                  "backward pass goes on (PyTorch DDP); when absent, on for timing-only data-parallel runs under "
                  "bsp without ZeRO, model parallelism or failures, off otherwise"),
          boolean("overlap_parameter_gather",
                  "ZeRO 1 and 2: gather the updated parameters bucket by bucket during the next step's first forward "
                  "pass, each bucket before its first layer (Megatron-Core's --overlap-param-gather), instead of "
                  "after the step")
              .fallback("false"),
          boolean("overlap_expert_exchange",
                  "expert parallelism under a 1F1B schedule or DualPipe: each forward pass and the backward pass of "
                  "another micro-batch after it run interleaved, each token exchange of one while the other computes, "
                  "the exchange's kernels holding 20 multiprocessors (Megatron-Core's "
                  "--overlap-moe-expert-parallel-comm; DualPipe's forward-backward chunks)")
              .fallback("false"),
          boolean("overlap_tensor_communication",
                  "under sequence parallelism, run the tensor group's gathers and reduce-scatters while the products "
                  "beside them compute, in chunks (Megatron-LM's --tp-comm-overlap with Transformer Engine): a "
                  "gather in as many chunks as the group has devices, the forward pass's reduce-scatters in 4, the "
                  "backward pass's beside the weights' gradients")
              .fallback("false"),
          quantity("bucket_size", Unit::Size, "gradients per bucket when overlapping (PyTorch DDP's bucket_cap_mb)")
              .exclusive_min()
              .fallback("25MiB"),
          choice_of("recomputation", "recomputation",
                    "activations dropped in the forward pass and recomputed in the backward pass, trading compute for "
                    "memory (timing-only transformer models)",
                    choices_of(recomputations()))
              .fallback("none"),
          list_of("recompute_modules",
                  "under recomputation: selective, the modules rerun in the backward pass, as Megatron-Core's "
                  "recompute_modules names them; [core_attn] when absent",
                  choice_of("[]", "module", "a recomputed module", choices_of(recomputed_modules())))
              .for_example("[mla_up_proj, mlp]"),
          map_of("routing",
                 "how a mixture of experts' router spreads each micro-batch's tokens over the experts, drawn per "
                 "micro-batch and mixture block (timing-only mixtures under expert parallelism; even when absent)",
                 {
                     choice_of("distribution", "routing distribution", "the experts' shares of the routed tokens",
                               choices_of(routing_distributions()))
                         .fallback("uniform"),
                     number("exponent", 0.0, 100.0, "Zipf's exponent s: the k-th expert's share goes as 1/k^s")
                         .exclusive_min()
                         .fallback("1")
                         .when("distribution", {"zipf"}),
                     number("alpha", 0.0, 1e6,
                            "the Dirichlet's concentration: below 1 a few experts take most tokens, large nearly even")
                         .exclusive_min()
                         .fallback("1")
                         .when("distribution", {"dirichlet"}),
                     number("capacity_factor", 1.0, 1e6,
                            "an expert takes at most this many times its even share of the routed tokens; the rest "
                            "are dropped (at least 1: below it even routing drops tokens; absent: no capacity, no "
                            "token dropped)"),
                     integer("groups", 1, 1 << 20,
                             "group-limited routing: the experts in this many equal groups, in expert order "
                             "(DeepSeek-V3's n_group, Megatron-Core's moe_router_num_groups); with group_limit"),
                     integer("group_limit", 1, 1 << 20,
                             "group-limited routing: a token's experts all among those of this many groups "
                             "(DeepSeek-V3's topk_group: node-limited routing where a group is a node's experts)"),
                 }),
          choice_of("token_dispatcher", "token dispatcher",
                    "how the expert group moves the routed tokens (timing-only mixtures under expert parallelism)",
                    choices_of(token_dispatchers()))
              .fallback("all_to_all"),
          choice_of("communication_library", "communication library",
                    "what the collectives cost beyond the network's time (docs/how-it-works.md)",
                    choices_of(communication_libraries()))
              .fallback("none"),
          choice_of("backend", "compute backend", "where the real math runs", choices_of(backends()))
              .fallback("auto"),
          map_of("batch", "samples per iteration; give exactly one of the two",
                 {
                     integer("per_worker", 1, kMaxCount, "samples each worker processes per iteration"),
                     integer("global", 1, kMaxCount, "samples per iteration over all workers (divided evenly)"),
                 })
              .require()
              .alternatives(),
          map_of("optimizer", "how gradients become updates", optimizer_keys(registries.optimizers)).require(),
          sync(registries.strategies),
          architecture(registries.collectives.allreduce),
          stop(),
          integer("evaluate_every", 1, kMaxCount, "iterations between evaluations; once per epoch when absent"),
      });
}

SchemaNode trace_of(const std::string& key, const std::string& description) {
  return map_of(key, description,
                {
                    text("file", "CSV of time,factor rows (seconds, fraction of full rate; a header line allowed), "
                                 "relative to this file"),
                    list_of("points", "inline points; 1 before the first",
                            map_of("[]", "one point",
                                   {quantity("at", Unit::Duration, "simulated time from which the factor holds")
                                        .require()
                                        .for_example("\"10s\""),
                                    number("factor", 0.0, 1.0, "fraction of full rate").exclusive_min().require()})),
                    quantity("period", Unit::Duration, "repeat the points every period (after the last point)")
                        .exclusive_min()
                        .for_example("\"60s\""),
                });
}

SchemaNode link_traces() {
  return list_of("link_traces", "links whose bandwidth varies over time",
                 map_of("[]", "one trace for some links",
                        {
                            list_of("links", "link names as links.csv gives them (`dtsim explain` lists them)",
                                    text("[]", "a link name"))
                                .require(),
                            trace_of("trace", "the links' bandwidth: `factor` x their bandwidth from each point on")
                                .require(),
                        }));
}

SchemaNode link_conditions() {
  return list_of(
      "link_conditions", "packet loss and jitter on chosen links (wide-area links above all)",
      map_of("[]", "conditions on some links: those named, and every link of a class (loss, jitter or both)",
             {
                 list_of("links", "link names as links.csv gives them", text("[]", "a link name")),
                 text("class", "every link of this class (links.csv's class column: a sites topology's `wan`)"),
                 number("loss", 0.0, 1.0,
                        "the share of packets lost: each direction's rate capped at `streams` TCP flows' under that "
                        "loss (Mathis et al. 1997: 1.22 MSS / (RTT sqrt(loss)) a flow, MSS 1460 bytes, RTT twice "
                        "the latency)")
                     .exclusive_min()
                     .for_example("0.0001"),
                 integer("streams", 1, 1'000'000,
                         "parallel TCP flows each transfer is striped over (as wide-area tools do): the cap "
                         "multiplied by them, up to the link's bandwidth")
                     .fallback("1"),
                 quantity("jitter", Unit::Duration,
                          "the mean extra delay each message meets on each such link, beyond its latency: a seeded "
                          "draw per message and link")
                     .exclusive_min()
                     .for_example("\"5ms\""),
                 choice_of("jitter_distribution", "jitter distribution", "how each extra delay is drawn",
                           choices_of(jitter_distributions()))
                     .fallback("exponential"),
             }));
}

SchemaNode background_traffic() {
  return list_of("background_traffic", "traffic that is not the job's, sharing chosen links with it",
                 map_of("[]", "a steady flow on some links",
                        {
                            list_of("links", "link names as links.csv gives them", text("[]", "a link name")).require(),
                            quantity("rate", Unit::Bandwidth, "bytes per second each way (forward only on a one-way "
                                                              "link), for the whole run")
                                .require()
                                .exclusive_min()
                                .for_example("\"5Gbps\""),
                        }));
}

SchemaNode stragglers() {
  std::vector<SchemaNode> rule{
      list_of("workers", "worker ranks this rule slows; every worker when absent",
              integer("[]", 0, kMaxWorkers, "a worker rank")),
      number("slowdown", 1.0, 1e6, "fixed factor on every compute step (the worker's device runs that many times slower)"),
  };
  // The distribution (optional: no default), whose draws `scope` shares, then each distribution's own keys.
  std::vector<SchemaNode> random =
      plugin_keys(core::builtin_slowdowns(), "distribution", "slowdown distribution",
                  "random factor on each gradient step, drawn per worker and step (seeded)", "");
  random.insert(random.begin() + 1,
                choice_of("scope", "straggler scope", "whose steps share a draw",
                          {{"worker", "each worker draws its own factors"},
                           {"cluster", "one draw per step for all the rule's workers (a cluster-wide slow period)"}})
                    .fallback("worker")
                    .when("distribution", core::builtin_slowdowns().registration_order()));
  rule.insert(rule.end(), std::make_move_iterator(random.begin()), std::make_move_iterator(random.end()));
  rule.push_back(trace_of("trace", "time-varying speed: the device runs at `factor` x its speed from each point on"));
  return list_of("stragglers", "workers slower than their device", map_of("[]", "one straggler rule", std::move(rule)));
}

std::vector<core::Choice> catalog_choices() {
  std::vector<core::Choice> out;
  for (const FailureCatalog& catalog : failure_catalogs()) out.push_back({catalog.name, catalog.description});
  return out;
}

std::vector<SchemaNode> component_rates() {
  std::vector<SchemaNode> out;
  for (const std::string& kind : component_kinds()) {
    out.push_back(map_of(kind, fmt::format("failures of each {}", kind),
                         {
                             quantity("mtbf", Unit::Duration,
                                      "mean time between failures of one component; the catalog's when absent")
                                 .exclusive_min()
                                 .for_example("\"100000h\""),
                             // No fallback: a default would make every kind's map, declared or not.
                             choice_of("per", "component unit",
                                       fmt::format("what one component is; {} when absent", to_string(default_unit(kind))),
                                       {{"device", "each device (a GPU, its memory, its network adapter)"},
                                        {"node", "each node (its devices fail with it)"}}),
                             quantity("repair", Unit::Duration,
                                      "time to repair or replace a failed component (a node's worth); waited for unless "
                                      "a spare takes its place or the job shrinks; 0 when absent")
                                 .for_example("\"3d\""),
                         }));
  }
  return out;
}

SchemaNode failures() {
  return map_of("failures", "workers that fail, and how training recovers",
                {
                    list_of("events", "failures at given simulated times",
                            map_of("[]", "one failure",
                                   {
                                       choice_of("kind", "failure kind", "what fails",
                                                 {{"worker", "a worker's device"},
                                                  {"server", "a parameter-server shard: its workers wait, and it "
                                                             "restarts from its checkpoint"},
                                                  {"link", "a network link: routes go around it, or the job is "
                                                           "partitioned"},
                                                  {"node", "a node of cluster.nodes: each of its devices fails at "
                                                           "once"},
                                                  {"switch", "a switch: every link to it goes down with it, so do the "
                                                             "routes through it; hosts it alone served are cut off"}})
                                           .require(),
                                       text("target", "worker rank, node index, server (shard) index, link name as "
                                                      "links.csv gives it, or switch name")
                                           .require(),
                                       quantity("at", Unit::Duration, "when it fails").require().for_example("\"2s\""),
                                       quantity("repair_after", Unit::Duration,
                                                "how long until it is back; absent: a spare replaces a worker "
                                                "(allreduce) or a server, a parameter-server worker leaves for good"),
                                   })),
                    map_of("random", "failures drawn from the seed: each worker fails after an exponential time",
                           {
                               quantity("mtbf", Unit::Duration, "mean time between failures of one worker")
                                   .require()
                                   .exclusive_min()
                                   .for_example("\"10s\""),
                               list_of("workers", "ranks that may fail; every worker when absent",
                                       integer("[]", 0, kMaxWorkers, "a worker rank")),
                               quantity("repair_after", Unit::Duration, "how long until a failed worker is back"),
                           }),
                    map_of("checkpoint", "periodic checkpoints to restart from: of the job (allreduce), of each server shard "
                                         "(parameter server)",
                           {
                               integer("every", 1, kMaxCount, "iterations (allreduce) or a shard's updates between checkpoints")
                                   .require(),
                               quantity("storage_bandwidth", Unit::Bandwidth,
                                        "rate at which the model and optimizer state are written and read back, shared by "
                                        "all writers and readers")
                                   .require()
                                   .exclusive_min()
                                   .for_example("\"2GBps\""),
                               quantity("async_host_bandwidth", Unit::Bandwidth,
                                        "asynchronous checkpoints in a budget's projected run: the job waits only while "
                                        "each device copies its share to host memory at this rate, and the checkpoint "
                                        "is written to storage in the background; synchronous when absent")
                                   .exclusive_min()
                                   .for_example("\"25GBps\""),
                           }),
                    quantity("restart_time", Unit::Duration,
                             "time to restart the job (or a worker) after a failure, before reading the checkpoint; "
                             "0 when absent"),
                    choice_of("catalog", "failure catalog",
                              "failures by component kind at the rates of a published breakdown; a budget's run "
                              "(training.stop.tokens or samples) projects them",
                              catalog_choices()),
                    map_of("components", "failures by component kind at your own rates, each replacing the catalog's; "
                                         "a budget's run projects them",
                           component_rates()),
                    quantity("detection_time", Unit::Duration,
                             "time from noticing a failure to the job stopping for it; 0 when absent"),
                    integer("spares", 0, kMaxCount,
                            "hot spare nodes of a budget's projected run: a failed node needing repair is replaced by a "
                            "free one at once; 0 when absent"),
                    integer("draws", 1, 100'000,
                            "runs of a budget's projection drawn from the seed, seed + 1, ...: their spread (mean and "
                            "percentiles) is reported beside the first; no more are drawn once they hold 10^8 "
                            "interruptions or 10^8 checkpoints in all, and none of a run writing over 10^8 "
                            "checkpoints; 1 when absent"),
                    boolean("shrink", "a budget's projected run goes on without a failed node's data-parallel replicas "
                                      "when no spare is free, and grows back at the first checkpoint after the repair; "
                                      "false when absent"),
                    boolean("elastic", "BSP (and local SGD) go on with the surviving workers instead of rolling back; false "
                                        "when absent"),
                });
}

SchemaNode energy() {
  return map_of("energy", "measure the run's energy (device idle_power and busy_power needed) and what it costs",
                {
                    quantity("carbon_intensity", Unit::CarbonIntensity, "grid carbon intensity, for kg CO2")
                        .for_example("\"400gCO2/kWh\""),
                    number("price_per_device_hour", 0.0, 1e9, "price of one device (worker) for one hour"),
                    number("price_per_kwh", 0.0, 1e9, "price of one kWh"),
                    text("currency", "currency of the prices; USD when absent"),
                    quantity("node_static_power", Unit::Power,
                             "drawn by every node whatever it does (CPUs, memory, fans): each worker without "
                             "cluster.nodes, else each node; and each server")
                        .for_example("\"500W\""),
                    quantity("link_idle_power", Unit::Power, "each link direction, carrying nothing")
                        .for_example("\"2W\""),
                    quantity("link_busy_power", Unit::Power, "each link direction at full bandwidth (linear between)")
                        .for_example("\"5W\""),
                });
}

SchemaNode outputs() {
  return map_of("outputs", "what is written, and where",
                {
                    text("folder", "result folder; out/NAME when absent (the -o flag overrides it)"),
                    number("target_loss", 0.0, kInf,
                           "validation loss whose first reaching summary.json reports (result.time_to_target); "
                           "training still runs to its stop condition")
                        .exclusive_min(),
                    number("target_accuracy", 0.0, 1.0,
                           "validation accuracy (a fraction) whose first reaching summary.json reports "
                           "(result.time_to_accuracy); training still runs to its stop condition")
                        .exclusive_min(),
                    boolean("trace", "write trace.json, the run's timeline in the Trace Event Format (Perfetto, "
                                     "chrome://tracing)")
                        .fallback("false"),
                    integer("trace_iterations", 0, std::numeric_limits<std::int32_t>::max(),
                            "the timeline covers the first this many iterations (by worker 0's clock); 0: all")
                        .fallback("10"),
                    integer("trace_hosts", 0, kMaxWorkers,
                            "the timeline follows at most this many hosts, spread evenly over the ranks; 0: all")
                        .fallback("64"),
                    integer("trace_events", 1000, 100'000'000,
                            "the timeline stops where it holds this many spans and messages (about 100 bytes "
                            "each in trace.json)")
                        .fallback("400000"),
                    boolean("report", "write report.html: charts of the run, one file that opens offline")
                        .fallback("false"),
                });
}

SchemaNode sweep() {
  return map_of("sweep", "run the scenario once per point of a parameter grid",
                {
                    dictionary_of("axes", "dotted path of a scalar key (a number picks a list item: stragglers.0.slowdown) -> the values it takes",
                                  list_of("<path>", "values of one axis", any_scalar("[]", "one value"))),
                    // No default: a mapping of defaults alone would give every scenario a sweep.
                    choice_of("combine", "sweep combination", "how axes combine; cartesian when absent",
                              {{"cartesian", "every combination of the axes' values"},
                               {"zip", "the i-th value of every axis together (axes of equal length; a value may repeat)"}}),
                    list_of("points",
                            "instead of axes: the points themselves, each a mapping of dotted paths to values, every "
                            "point setting the same keys (read as zipped axes)",
                            dictionary_of("[]", "one point: dotted path -> its value", any_scalar("<path>", "its value"))),
                })
      .alternatives();  // a sweep of axes and one of points do not mix: an including file's sweep is its own
}

/// A job's copy of a top-level section: merged over the top level's, so none of its keys is required or takes a
/// default there (a default would override what the top level wrote).
SchemaNode merged_over(SchemaNode section) {
  section.required = false;
  section.default_value.clear();
  for (SchemaNode& child : section.children) child = merged_over(std::move(child));
  return section;
}

SchemaNode jobs(const Registries& registries) {
  return list_of(
      "jobs", "several jobs sharing the cluster and its links; each inherits every section it does not name",
      map_of("[]", "one job",
             {
                 text("name", "names the job; its results go to jobs/NAME").require(),
                 integer("workers", 1, kMaxWorkers, "its devices, one worker each (at most cluster.workers)").require(),
                 quantity("arrival", Unit::Duration, "when it joins the queue, in simulated time; 0 when absent")
                     .for_example("\"30min\""),
                 choice_of("placement", "placement", "where its devices come from; scheduler.placement when absent",
                           choices_of(job_placements())),
                 list_of("hosts", "explicit placement: worker host names (as links.csv names them), in rank order",
                         text("[]", "a worker host")),
                 integer("priority", -1'000'000, 1'000'000,
                         "higher goes first in the queue; equal ones in arrival order; 0 when absent"),
                 quantity("time_limit", Unit::Duration,
                          "the time it declares it needs (Slurm's --time); backfill reserves by it")
                     .exclusive_min()
                     .for_example("\"2h\""),
                 merged_over(model(registries)),
                 merged_over(data(registries)),
                 merged_over(training(registries)),
             }));
}

SchemaNode scheduler() {
  return map_of("scheduler", "how the queue of jobs is served",
                {
                    // No defaults here: a mapping of defaults alone would give every scenario a scheduler.
                    choice_of("policy", "scheduling policy", "which waiting job starts when devices free up; fifo "
                                                             "when absent",
                              choices_of(schedule_policies())),
                    choice_of("placement", "placement", "where a job that names none goes; packed when absent",
                              choices_of(job_placements())),
                    choice_of("preemption", "preemption",
                              "what a waiting job may do to running jobs of lower priority; off when absent",
                              choices_of(preemptions())),
                    quantity("checkpoint_bandwidth", Unit::Bandwidth,
                             "preemption: the storage rate at which a stopped job writes its model and optimizer "
                             "state, and reads it back when it resumes")
                        .exclusive_min()
                        .for_example("\"5GBps\""),
                });
}

SchemaNode build(const Registries& registries) {
  return map_of(
      "", "a dtsim scenario",
      {
          file_list("include", "files merged in first, relative to this file; this file's keys win"),
          text("name", "names the run; results go to out/NAME").require(),
          text("description", "free text shown by `dtsim explain`"),
          integer("seed", 0, std::numeric_limits<std::int64_t>::max(), "seed of every random stream").fallback("1"),
          cluster().require(),
          topology(registries).require(),
          model(registries).require(),
          data(registries),
          training(registries).require(),
          stragglers(),
          link_traces(),
          link_conditions(),
          background_traffic(),
          failures(),
          energy(),
          outputs(),
          jobs(registries),
          scheduler(),
          sweep(),
      });
}

}  // namespace

SchemaNode scenario_schema(const Registries& registries) { return build(registries); }

const SchemaNode* find_schema(const SchemaNode& root, const std::string& dotted_path) {
  const SchemaNode* node = &root;
  for (const auto& key : split_dotted(dotted_path)) {
    // A number picks one item of a list (`stragglers.0.slowdown`): every item has the list's item schema.
    const bool index = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
    node = index ? (node->kind == ValueKind::List && !node->children.empty() ? &node->children.front() : nullptr)
                 : node->child(key);
    if (node == nullptr) return nullptr;
  }
  return node;
}

}  // namespace dtsim::scenario
