#include "sim/scenario/named_values.hpp"

namespace dtsim::scenario {

const std::vector<NamedValue<NetworkModel>>& network_models() {
  static const std::vector<NamedValue<NetworkModel>> table{
      {NetworkModel::AlphaBeta, "alpha_beta", "textbook: latency + size / bandwidth, fair sharing"},
      {NetworkModel::Tcp, "tcp", "SimGrid's calibrated TCP model"},
      {NetworkModel::Analytical, "analytical",
       "alpha_beta, with each timing-only collective timed at once for the whole group by max-min sharing of its "
       "links, a pipeline's messages as flows, and workers that behave alike simulated as one (fast at scale)"},
      {NetworkModel::ClosedForm, "closed_form",
       "as analytical, with no contention: each collective takes its algorithm's closed form on its routes' "
       "bottleneck, each message its route's latency and bottleneck (the fastest estimate, for sweeps and "
       "planning)"},
  };
  return table;
}

const NetworkModelTraits& traits_of(NetworkModel model) {
  static const NetworkModelTraits message_by_message{};
  static const NetworkModelTraits analytical{.times_phases_at_once = true, .network_name = "analytical"};
  static const NetworkModelTraits closed_form{.times_phases_at_once = true, .shares_links = false,
                                              .network_name = "closed-form"};
  switch (model) {
    case NetworkModel::AlphaBeta:
    case NetworkModel::Tcp: return message_by_message;
    case NetworkModel::Analytical: return analytical;
    case NetworkModel::ClosedForm: return closed_form;
  }
  return message_by_message;
}

const std::vector<NamedValue<models::PipelineSchedule>>& pipeline_schedules() {
  static const std::vector<NamedValue<models::PipelineSchedule>> table{
      {models::PipelineSchedule::GPipe, "gpipe", "every forward pass, then every backward pass"},
      {models::PipelineSchedule::OneForwardOneBackward, "1f1b",
       "after a warm-up, one forward then one backward: at most as many micro-batches in flight as stages"},
      {models::PipelineSchedule::Interleaved, "interleaved_1f1b",
       "1f1b over virtual_stages model chunks per device: the bubble shrinks by their number"},
      {models::PipelineSchedule::ZeroBubble, "zero_bubble",
       "ZB-H1: the backward split into input and weight gradients, the latter filling the waits"},
      {models::PipelineSchedule::DualPipe, "dualpipe",
       "DeepSeek's: two copies of the stages, micro-batches fed from both ends, a forward and a backward pass run as "
       "one"},
  };
  return table;
}

const std::vector<NamedValue<models::StageSplit::Kind>>& stage_splits() {
  static const std::vector<NamedValue<models::StageSplit::Kind>> table{
      {models::StageSplit::Kind::Flops, "flops",
       "stages balanced by training FLOPs, cut between transformer blocks"},
      {models::StageSplit::Kind::Even, "even",
       "the transformer blocks divided evenly, the embedding with the first stage, the output layer and the loss "
       "with the last (Megatron-Core's default)"},
  };
  return table;
}

const std::vector<NamedValue<std::string_view>>& stage_split_counts() {
  static const std::vector<NamedValue<std::string_view>> table{
      {"embedding", "embedding", "the embedding counted as one block of the first stage "
                                 "(Megatron-Core's account_for_embedding_in_pipeline_split)"},
      {"loss", "loss", "the output layer and the loss counted as one block of the last stage "
                       "(Megatron-Core's account_for_loss_in_pipeline_split)"},
  };
  return table;
}

const std::vector<NamedValue<models::Recomputation>>& recomputations() {
  static const std::vector<NamedValue<models::Recomputation>> table{
      {models::Recomputation::None, "none", "every layer's activations kept"},
      {models::Recomputation::Selective, "selective",
       "the modules of training.recompute_modules recomputed: the attention scores and probabilities and their "
       "context product unless declared (Korthikanti et al. 2022)"},
      {models::Recomputation::Full, "full", "only each transformer block's input kept; the block's forward pass rerun"},
  };
  return table;
}

const std::vector<NamedValue<models::RecomputedModule>>& recomputed_modules() {
  using M = models::RecomputedModule;
  static const std::vector<NamedValue<M>> table{
      {M::CoreAttention, "core_attn", "the attention scores, their softmax and the context product (the default)"},
      {M::LayerNorm, "layernorm", "each block's norms, their outputs not kept"},
      {M::LatentUpProjection, "mla_up_proj", "multi-head latent attention's up-projections, their outputs not kept"},
      {M::Mlp, "mlp", "a dense block's feed-forward products"},
      {M::ExpertActivation, "moe_act", "the routed experts' activation function, its output not kept"},
      {M::SharedExperts, "shared_experts", "a mixture's shared experts"},
  };
  return table;
}

const std::vector<NamedValue<TokenDispatcher>>& token_dispatchers() {
  static const std::vector<NamedValue<TokenDispatcher>> table{
      {TokenDispatcher::AllToAll, "all_to_all",
       "every routed copy sent to its expert's device by the expert group's all-to-all (Megatron-Core's alltoall "
       "dispatcher)"},
      {TokenDispatcher::DeepEp, "deepep",
       "each token sent once to each machine holding one of its experts, to the device of its own local index, "
       "then forwarded inside the machine; combined the other way round (DeepEP's normal kernels, Megatron-Core's "
       "flex dispatcher)"},
      {TokenDispatcher::AllGather, "all_gather",
       "every token gathered by every device of the expert group, which keeps those routed to its experts; their "
       "outputs summed back to the tokens' devices by a reduce-scatter (Megatron-Core's allgather dispatcher)"},
  };
  return table;
}

std::string_view to_string(TokenDispatcher dispatcher) { return name_of(token_dispatchers(), dispatcher); }

const std::vector<NamedValue<models::RoutingDistribution>>& routing_distributions() {
  static const std::vector<NamedValue<models::RoutingDistribution>> table{
      {models::RoutingDistribution::Uniform, "uniform", "every expert top_k / experts of the routed copies"},
      {models::RoutingDistribution::Zipf, "zipf",
       "the k-th expert of an order drawn each micro-batch takes a share as 1/k^exponent"},
      {models::RoutingDistribution::Dirichlet, "dirichlet",
       "the experts' shares drawn each micro-batch from a symmetric Dirichlet(alpha)"},
  };
  return table;
}

const std::vector<NamedValue<JitterDistribution>>& jitter_distributions() {
  static const std::vector<NamedValue<JitterDistribution>> table{
      {JitterDistribution::Exponential, "exponential",
       "of mean `jitter`: mostly short delays with a long tail, as a queue's waiting time"},
      {JitterDistribution::Uniform, "uniform", "uniform between 0 and twice `jitter`"},
  };
  return table;
}

const std::vector<NamedValue<ContextAttention>>& context_attentions() {
  static const std::vector<NamedValue<ContextAttention>> table{
      {ContextAttention::Ring, "ring",
       "keys and values passed around the context group, each transfer beside a block of attention"},
      {ContextAttention::AllGather, "all_gather",
       "keys and values allgathered before attention, their gradients reduce-scattered after (Llama 3)"},
  };
  return table;
}

const std::vector<NamedValue<CommunicationLibrary>>& communication_libraries() {
  static const std::vector<NamedValue<CommunicationLibrary>> table{
      {CommunicationLibrary::None, "none", "the network's time alone: messages as the algorithm sends them"},
      {CommunicationLibrary::Nccl, "nccl",
       "NCCL's cost model on top: launch and per-step latency, LL / LL128 / Simple protocol chosen by size"},
  };
  return table;
}

const std::vector<NamedValue<models::Partitioning>>& partitionings() {
  static const std::vector<NamedValue<models::Partitioning>> table{
      {models::Partitioning::Iid, "iid", "contiguous shards of the data in their (random) order"},
      {models::Partitioning::ByLabel, "by_label", "the training set sorted by label, then cut: each worker sees few labels"},
      {models::Partitioning::Dirichlet, "dirichlet", "each worker's label shares drawn from a Dirichlet distribution"},
  };
  return table;
}

const std::vector<NamedValue<Architecture>>& architectures() {
  static const std::vector<NamedValue<Architecture>> table{
      {Architecture::Allreduce, "allreduce", "peer-to-peer collective"},
      {Architecture::ParameterServer, "parameter_server", "workers push to and pull from servers"},
      {Architecture::Hybrid, "hybrid", "dense parameters by allreduce, sparse ones through servers"},
  };
  return table;
}

const std::vector<NamedValue<ComputePrecision>>& compute_precisions() {
  static const std::vector<NamedValue<ComputePrecision>> table{
      {ComputePrecision::fp32, "fp32", "single precision: peak_flops"},
      {ComputePrecision::mixed, "mixed", "16-bit math with FP32 accumulation: half_flops; gradients sent in 16 bits"},
      {ComputePrecision::bf16, "bf16",
       "BF16 products at half_flops; gradients accumulated and reduced in FP32, as Megatron-Core does"},
      {ComputePrecision::fp16, "fp16", "FP16 products at half_flops; gradients in FP16, as Megatron-LM's fp16 keeps them"},
      {ComputePrecision::fp8_delayed, "fp8_delayed",
       "FP8 products at fp8_flops, per-tensor scales from an amax history (Transformer Engine's DelayedScaling)"},
      {ComputePrecision::fp8_current, "fp8_current",
       "FP8 products at fp8_flops, per-tensor scales from each tensor's amax, one more pass (Float8CurrentScaling)"},
      {ComputePrecision::fp8_blockwise, "fp8_blockwise",
       "FP8 products at fp8_flops, scales per 1x128 and 128x128 block (DeepSeek-V3's; Float8BlockScaling)"},
      {ComputePrecision::mxfp8, "mxfp8",
       "FP8 products at fp8_flops, a scale per 32 values applied by the tensor cores (MXFP8BlockScaling)"},
      {ComputePrecision::nvfp4, "nvfp4", "FP4 products at fp4_flops, an FP8 scale per 16 values (NVFP4BlockScaling)"},
  };
  return table;
}

const std::vector<NamedValue<JobPlacement>>& job_placements() {
  static const std::vector<NamedValue<JobPlacement>> table{
      {JobPlacement::packed, "packed", "the fewest switches: whole machines under the leaf switch that fits best"},
      {JobPlacement::spread, "spread", "machines taken in turn from every leaf switch"},
      {JobPlacement::random, "random", "free machines in a seeded random order"},
      {JobPlacement::explicit_hosts, "explicit", "the hosts named in `hosts`, in rank order"},
  };
  return table;
}

const std::vector<NamedValue<SchedulePolicy>>& schedule_policies() {
  static const std::vector<NamedValue<SchedulePolicy>> table{
      {SchedulePolicy::fifo, "fifo", "jobs start in queue order; none passes the head"},
      {SchedulePolicy::backfill, "backfill",
       "EASY backfill: a later job starts early where it fits and, by its time_limit, delays no reservation of the head"},
  };
  return table;
}

const std::vector<NamedValue<Preemption>>& preemptions() {
  static const std::vector<NamedValue<Preemption>> table{
      {Preemption::off, "off", "a running job runs to its end"},
      {Preemption::checkpoint, "checkpoint",
       "a waiting job stops running jobs of lower priority: each ends its iteration, writes a checkpoint, and resumes "
       "on its devices from it when they are free"},
  };
  return table;
}

const std::vector<NamedValue<Backend>>& backends() {
  static const std::vector<NamedValue<Backend>> table{
      {Backend::Auto, "auto", "CUDA when a device is present, otherwise CPU"},
      {Backend::Cpu, "cpu", "Eigen on the CPU"},
      {Backend::Cuda, "cuda", "CUDA kernels and cuBLAS (softmax_regression, mlp); an error without a device"},
  };
  return table;
}

std::string_view to_string(NetworkModel model) { return name_of(network_models(), model); }
std::string_view to_string(Architecture architecture) { return name_of(architectures(), architecture); }
std::string_view to_string(Backend backend) { return name_of(backends(), backend); }
std::string_view to_string(models::PipelineSchedule schedule) { return name_of(pipeline_schedules(), schedule); }
std::string_view to_string(models::Recomputation recomputation) { return name_of(recomputations(), recomputation); }
std::string_view to_string(models::RoutingDistribution distribution) {
  return name_of(routing_distributions(), distribution);
}
std::string_view to_string(ContextAttention attention) { return name_of(context_attentions(), attention); }
std::string_view to_string(CommunicationLibrary library) { return name_of(communication_libraries(), library); }
std::string_view to_string(models::Partitioning partitioning) { return name_of(partitionings(), partitioning); }
std::string_view to_string(ComputePrecision precision) { return name_of(compute_precisions(), precision); }
std::string_view to_string(JobPlacement placement) { return name_of(job_placements(), placement); }
std::string_view to_string(SchedulePolicy policy) { return name_of(schedule_policies(), policy); }
std::string_view to_string(Preemption preemption) { return name_of(preemptions(), preemption); }
std::string_view to_string(JitterDistribution distribution) { return name_of(jitter_distributions(), distribution); }

}  // namespace dtsim::scenario
