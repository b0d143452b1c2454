#include "sim/checks/parallelism_checks.hpp"

#include "models/pipeline_plan.hpp"
#include "sim/core/config_view.hpp"
#include "sim/scenario/expert_grid.hpp"
#include "sim/scenario/parallel_axes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace dtsim::checks {
namespace {

/// A feature that runs a reduce-scatter and an allgather with the architecture's algorithm (`what` does so):
/// the algorithm must have both.
void check_gather_pair(const scenario::Scenario& s, const Registries& registries, std::string_view what,
                       std::string_view hint, core::DiagnosticSink& sink) {
  const std::string& algorithm = s.training.allreduce_algorithm.value;
  if (registries.collectives.of(comm::Operation::reduce_scatter).contains(algorithm) &&
      registries.collectives.of(comm::Operation::allgather).contains(algorithm)) {
    return;
  }
  sink.error(s.training.allreduce_algorithm.where, "training.architecture.algorithm",
             fmt::format("{} with the architecture's algorithm, and '{}' has no such pair", what, algorithm),
             std::string(hint));
}

/// Tensor parallelism splits a transformer profile's layers: the degree divides the heads, the key-value
/// heads and the feed-forward width; sequence parallelism needs a reduce-scatter and an allgather.
void check_tensor(const scenario::Scenario& s, const models::ModelProfile& profile, const Registries& registries,
                  core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const std::string key = "training.parallelism.tensor";
  if (plan.tensor == 1) {
    if (plan.sequence_parallel) {
      sink.error(plan.sequence_parallel_at, "training.parallelism.sequence_parallel",
                 "sequence parallelism splits work over a tensor group, and there is none (tensor: 1)",
                 "set training.parallelism.tensor above 1, or leave sequence_parallel out");
    }
    return;
  }
  const models::TransformerShape& shape = profile.shape;
  if (shape.heads == 0) {
    sink.error(plan.tensor_at, key,
               fmt::format("tensor parallelism splits attention and feed-forward layers, and '{}' has none",
                           s.model.kind.value),
               "use a transformer profile (profile:gpt3_175b, profile:llama2_70b, ...), or tensor: 1");
    return;
  }
  const auto divides = [&](int count, const std::string& what) {
    if (count % plan.tensor == 0) return true;
    std::vector<int> fits;
    for (int t = 2; t <= count && t <= 64; ++t) {
      if (count % t == 0 && shape.key_value_heads % t == 0 && shape.heads % t == 0 && shape.feed_forward % t == 0) {
        fits.push_back(t);
      }
    }
    sink.error(plan.tensor_at, key,
               fmt::format("a tensor degree of {} does not divide {}'s {} {}", plan.tensor, s.model.kind.value, count,
                           what),
               fits.empty() ? std::string("use tensor: 1")
                            : fmt::format("use a degree that divides the heads, the key-value heads and the "
                                          "feed-forward width: {}",
                                          fmt::join(fits, ", ")));
    return false;
  };
  if (divides(shape.heads, "attention heads") && shape.key_value_heads != shape.heads) {
    divides(shape.key_value_heads, "key-value heads");
  }
  divides(shape.feed_forward, "feed-forward channels");
  if (plan.sequence_parallel) {
    check_gather_pair(s, registries, "sequence parallelism reduce-scatters and allgathers",
                      "use ring, or sequence_parallel: false", sink);
  }
}

/// Micro-batch passes a whole run may simulate (a step's, micro-batches x model chunks x stages, times tensor
/// ranks and iterations). A pass costs the same however many a step holds, message by message or not: at the
/// bound a run takes seconds (2 stages x 500,000 micro-batches: 6.6 s message by message, 7.4 s under the
/// analytical network; 8 stages x 65,536 message by message 4.1 s; bench/pipeline_microbatches.sh, docs/limits.md).
constexpr double kRunPassLimit = 1e6;

/// Refuses a pipeline whose run holds more micro-batch passes than simulate in reasonable time, naming the
/// figure: `microbatches: 1000000` on 2 stages, before a stage waited for its sends as they ended, ran over 10
/// minutes here before it was stopped.
void check_simulated_passes(const scenario::Scenario& s, core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const std::int64_t step = static_cast<std::int64_t>(plan.microbatches) * plan.virtual_stages * plan.pipeline;
  const double run = static_cast<double>(step) * plan.tensor * static_cast<double>(s.training.iterations.value_or(1));
  if (run > kRunPassLimit) {
    sink.error(plan.microbatches_at, "training.parallelism.microbatches",
               fmt::format("{} micro-batch passes a step x {} tensor rank(s) x {} iteration(s) are {:.3g} passes, more "
                           "than the {:.0e} a run may simulate",
                           step, plan.tensor, s.training.iterations.value_or(1), run, kRunPassLimit),
               "use fewer, larger micro-batches (or fewer iterations): a pipeline's bubble and time per sample "
               "change little once its micro-batches are many times its stages");
  }
}

void check_microbatches_divide(const scenario::Scenario& s, core::DiagnosticSink& sink) {
  check_simulated_passes(s, sink);
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  if (s.training.batch_per_worker % plan.microbatches != 0) {
    sink.error(plan.microbatches_at, "training.parallelism.microbatches",
               fmt::format("{} micro-batches do not divide a batch of {} samples", plan.microbatches,
                           s.training.batch_per_worker),
               s.training.batch_declared_global
                   ? fmt::format("use a number of micro-batches that divides the batch of each of the {} replicas "
                                 "(training.batch.global / {})", plan.data, plan.data)
                   : "use a number of micro-batches that divides training.batch.per_worker");
  }
}

/// Model parallelism (a pipeline, `training.parallelism.pipeline` > 1, or tensor groups, `tensor` > 1) runs
/// a timing-only model's layers split over workers, under bulk-synchronous steps with the replicas
/// averaging by allreduce; micro-batches split the batch.
/// Without a pipeline or a tensor group: micro-batches accumulate gradients (of timing-only models), and
/// the pipeline's own settings have nothing to order.
void check_without_model_parallelism(const scenario::Scenario& s, const Registries& registries, core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  // Without model parallelism, micro-batches are gradient accumulation: a timing-only worker runs them
  // one after the other and its replicas sum the gradients once per step.
  if (plan.microbatches > 1 && !s.model.timing_only) {
    sink.error(plan.microbatches_at, "training.parallelism.microbatches",
               fmt::format("micro-batches without a pipeline or a tensor group accumulate gradients of a "
                           "timing-only model (model.kind: profile:...), and '{}' trains for real",
                           s.model.kind.value),
               "leave microbatches out");
  } else if (plan.microbatches > 1) {
    check_microbatches_divide(s, sink);
  }
  if (plan.sequence_parallel) check_tensor(s, models::ModelProfile{}, registries, sink);
  using models::PipelineSchedule;
  if (plan.schedule == PipelineSchedule::Interleaved || plan.schedule == PipelineSchedule::ZeroBubble ||
      plan.schedule == PipelineSchedule::DualPipe || plan.virtual_stages > 1) {
    sink.error(plan.virtual_stages > 1 ? plan.virtual_stages_at : plan.schedule_at,
               plan.virtual_stages > 1 ? "training.parallelism.virtual_stages" : "training.parallelism.schedule",
               plan.virtual_stages > 1
                   ? std::string("virtual stages split a pipeline's stages into chunks, and there is one stage "
                                 "(pipeline: 1)")
                   : fmt::format("the '{}' schedule orders a pipeline's stages, and there is one stage (pipeline: 1)",
                                 scenario::to_string(plan.schedule)),
               "set training.parallelism.pipeline above 1, or leave it out");
  }
}

/// Real math splits the dense classifiers (softmax regression and the MLP) across devices, under gpipe or
/// 1f1b, without ZeRO or sequence parallelism. False when the model is not one of them (nothing more to check).
bool check_real_math_split(const scenario::Scenario& s, const core::SourcePosition& at, const std::string& key,
                           const std::string& what, core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const std::string& kind = s.model.kind.value;
  if (kind != "mlp" && kind != "softmax_regression" && kind != "moe") {
    sink.error(at, key,
               fmt::format("{} split real math for the dense classifiers (mlp, softmax_regression) in this version, "
                           "and '{}' is another model",
                           what, kind),
               fmt::format("use model.kind: mlp, a model.kind: profile:..., or {}: 1", key));
    return false;
  }
  const auto refuse = [&](bool when, core::SourcePosition where, const std::string& at_key, const std::string& why,
                          const std::string& hint) {
    if (when) sink.error(where, at_key, why, hint);
  };
  refuse(plan.schedule != models::PipelineSchedule::GPipe && plan.schedule != models::PipelineSchedule::OneForwardOneBackward,
         plan.schedule_at, "training.parallelism.schedule",
         fmt::format("a model trained for real runs the gpipe or 1f1b schedule, and the schedule is '{}'",
                     scenario::to_string(plan.schedule)),
         "use schedule: 1f1b");
  refuse(plan.zero > 0, plan.zero_at, "training.parallelism.zero", "ZeRO runs on timing-only models in this version",
         "use training.parallelism.zero: 0");
  refuse(plan.sequence_parallel, plan.sequence_parallel_at, "training.parallelism.sequence_parallel",
         "sequence parallelism splits transformer layers, and a dense classifier has none",
         "leave sequence_parallel out");
  return true;
}

/// DualPipe (dualpipe.py's asserts): the stages pair up, device d with device p - 1 - d, and each direction's
/// half of the micro-batches fills the pipeline from its end.
void check_dualpipe(const scenario::ParallelismSpec& plan, core::DiagnosticSink& sink) {
  if (plan.pipeline % 2 != 0) {
    sink.error(plan.pipeline_at, "training.parallelism.pipeline",
               fmt::format("DualPipe pairs each stage's device with its mirror, device d with device p - 1 - d, and {} "
                           "stages do not pair up",
                           plan.pipeline),
               fmt::format("use {} or {} stages", plan.pipeline - 1, plan.pipeline + 1));
  } else if (plan.microbatches % 2 != 0 || plan.microbatches < 2 * plan.pipeline) {
    const int fewest = std::max(2 * plan.pipeline, plan.microbatches + plan.microbatches % 2);
    sink.error(plan.microbatches_at, "training.parallelism.microbatches",
               fmt::format("DualPipe feeds half the micro-batches from each end of the pipeline, each half at least "
                           "the {} stages, and {} micro-batches are {}",
                           plan.pipeline, plan.microbatches,
                           plan.microbatches % 2 != 0 ? "odd" : fmt::format("fewer than {}", 2 * plan.pipeline)),
               fmt::format("use {} micro-batches, or another even count of at least {}", fewest, 2 * plan.pipeline));
  }
}

/// The schedule against the virtual stages and the pipeline.
void check_schedule(const scenario::Scenario& s, core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const bool interleaved = plan.schedule == models::PipelineSchedule::Interleaved;
  if (interleaved != (plan.virtual_stages > 1)) {
    sink.error(interleaved ? plan.schedule_at : plan.virtual_stages_at,
               interleaved ? "training.parallelism.schedule" : "training.parallelism.virtual_stages",
               interleaved ? "the interleaved schedule runs several model chunks per device, and virtual_stages is 1"
                           : fmt::format("{} model chunks per device run under the interleaved schedule, and the "
                                         "schedule is '{}'",
                                         plan.virtual_stages, scenario::to_string(plan.schedule)),
               interleaved ? "set training.parallelism.virtual_stages to 2 or more"
                           : "use schedule: interleaved_1f1b, or leave virtual_stages out");
  }
  if (interleaved && plan.pipeline > 1 && plan.microbatches % plan.pipeline != 0) {
    sink.error(plan.microbatches_at, "training.parallelism.microbatches",
               fmt::format("the interleaved schedule runs micro-batches in groups of the {} stages, and {} is not a "
                           "multiple of {}",
                           plan.pipeline, plan.microbatches, plan.pipeline),
               fmt::format("use {} micro-batches, or another multiple of the pipeline degree",
                           (plan.microbatches / plan.pipeline + 1) * plan.pipeline));
  }
  if (plan.pipeline == 1 && (interleaved || plan.schedule == models::PipelineSchedule::ZeroBubble ||
                             plan.schedule == models::PipelineSchedule::DualPipe)) {
    sink.error(plan.schedule_at, "training.parallelism.schedule",
               fmt::format("the '{}' schedule orders a pipeline's stages, and there is one stage",
                           scenario::to_string(plan.schedule)),
               "set training.parallelism.pipeline above 1, or leave schedule out");
  } else if (plan.schedule == models::PipelineSchedule::DualPipe) {
    check_dualpipe(plan, sink);
  }
}

/// Expert parallelism spreads a mixture's `experts` routed experts (a profile's, or the moe model's): the
/// degree divides them.
void check_experts(const scenario::Scenario& s, int experts, core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const std::string key = "training.parallelism.expert";
  if (experts == 0) {
    sink.error(plan.expert_at, key,
               fmt::format("expert parallelism spreads a mixture's routed experts, and '{}' has none", s.model.kind.value),
               "use a mixture (profile:mixtral_8x7b, profile:deepseek_v3, or model.experts on profile:gpt or "
               "profile:llama), or expert: 1");
    return;
  }
  if (experts % plan.expert != 0) {
    // The expert groups divide the replicas, or on the experts' own grid a stage's devices.
    const int room = scenario::on_expert_grid(plan) ? scenario::stage_devices(plan) : plan.data;
    std::vector<int> fits;
    for (int e = 2; e <= experts; ++e) {
      if (experts % e == 0 && room % e == 0) fits.push_back(e);
    }
    sink.error(plan.expert_at, key,
               fmt::format("an expert degree of {} does not divide {}'s {} routed experts", plan.expert,
                           s.model.kind.value, experts),
               fits.empty() ? std::string("use expert: 1")
                            : fmt::format("use a degree that divides the experts and {}: {}",
                                          scenario::on_expert_grid(plan) ? "tensor x data" : "the data-parallel degree",
                                          fmt::join(fits, ", ")));
  }
  if (s.training.overlap_parameter_gather) {
    sink.error(s.training.overlap_parameter_gather_at, "training.overlap_parameter_gather",
               "gathers overlapped with the forward pass are not simulated with expert parallelism yet",
               "leave overlap_parameter_gather out, or use expert: 1");
  }
}

/// Real math spreads the experts of the mixture-of-experts classifier (model.kind: moe) over expert groups
/// carved out of the data-parallel replicas, with no other split. False when it cannot (nothing more to check).
bool check_real_math_experts(const scenario::Scenario& s, core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const std::string key = "training.parallelism.expert";
  if (s.model.kind.value != "moe") {
    sink.error(plan.expert_at, key,
               fmt::format("expert parallelism spreads a mixture's experts, and '{}' trains for real without any",
                           s.model.kind.value),
               "use model.kind: moe, a mixture profile such as profile:mixtral_8x7b, or expert: 1");
    return false;
  }
  const std::array<std::tuple<int, core::SourcePosition, std::string_view>, 3> others{
      {{plan.tensor, plan.tensor_at, "tensor"}, {plan.pipeline, plan.pipeline_at, "pipeline"},
       {plan.context, plan.context_at, "context"}}};
  for (const auto& [degree, where, axis] : others) {
    if (degree == 1) continue;
    sink.error(where, fmt::format("training.parallelism.{}", axis),
               fmt::format("a mixture trained for real is split over data x expert in this version, and {} is {}",
                           axis, degree),
               fmt::format("use {}: 1 with model.kind: moe, or a mixture profile such as profile:mixtral_8x7b", axis));
    return false;
  }
  const core::View model(&s.model.section, "model");
  check_experts(s, static_cast<int>(model.integer("experts").value_or(0)), sink);
  return true;
}

/// Context parallelism splits a timing-only transformer's sequences: two chunks a device, whole attention
/// heads beside; not yet with expert parallelism or full recomputation.
void check_context(const scenario::Scenario& s, const models::ModelProfile& profile, const Registries& registries,
                   core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const std::string key = "training.parallelism.context";
  if (profile.shape.heads == 0) {
    sink.error(plan.context_at, key,
               fmt::format("context parallelism splits a transformer's sequences, and '{}' has none", s.model.kind.value),
               "use a transformer profile, or context: 1");
    return;
  }
  if (profile.shape.sequence % (2 * plan.context) != 0) {
    sink.error(plan.context_at, key,
               fmt::format("a context degree of {} splits each sequence of {} tokens into 2 x {} chunks, which do not "
                           "divide it",
                           plan.context, profile.shape.sequence, plan.context),
               "use a degree c with 2 c dividing model.sequence_length");
  }
  if (plan.expert > 1 && !scenario::on_expert_grid(plan)) {
    // Carved out of the replicas, an expert group would exchange tokens of one context rank's chunks only.
    sink.error(plan.context_at, key,
               "context and expert parallelism together run on the experts' own grid, folded over tensor x context x "
               "data, and expert_tensor is not declared",
               "declare training.parallelism.expert_tensor (1: each expert whole on a device), or use context: 1");
  }
  if (s.training.recomputation == models::Recomputation::Full) {
    sink.error(s.training.recomputation_at, "training.recomputation",
               "full recomputation reruns attention's key-value exchanges, which context parallelism does not "
               "simulate yet",
               "use recomputation: selective or none with context parallelism");
  }
  if (plan.context_attention == scenario::ContextAttention::AllGather) {
    check_gather_pair(s, registries, "context_attention: all_gather allgathers and reduce-scatters",
                      "use ring, or context_attention: ring", sink);
  }
}

/// Expert tensor parallelism (training.parallelism.expert_tensor declared, at any degree) puts a timing-only mixture's
/// routed experts on a grid of their own: their matrices split over expert-tensor groups carved out of the replicas
/// beside the expert groups, each tensor rank dispatching its sequence-parallel share of the tokens. `profile`: the
/// layer table where it is known. False where the model is not a timing-only one (nothing more to check).
bool check_expert_tensor(const scenario::Scenario& s, const models::ModelProfile* profile, const Registries& registries,
                         core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const std::string key = "training.parallelism.expert_tensor";
  if (!s.model.timing_only) {
    sink.error(plan.expert_tensor_at, key,
               fmt::format("expert tensor parallelism splits the routed experts of a timing-only mixture (model.kind: "
                           "profile:...), and '{}' trains for real",
                           s.model.kind.value),
               "use a mixture profile such as profile:mixtral_8x7b, or leave expert_tensor out");
    return false;
  }
  const int stage = scenario::stage_devices(plan);
  if (stage % (plan.expert * plan.expert_tensor) != 0) {
    const std::string devices = plan.context > 1 ? fmt::format("tensor x context x data = {} x {} x {}", plan.tensor,
                                                               plan.context, plan.data)
                                                 : fmt::format("tensor x data = {} x {}", plan.tensor, plan.data);
    sink.error(plan.expert_tensor_at, key,
               fmt::format("expert x expert_tensor = {} x {} = {} does not divide a stage's {} = {} devices", plan.expert,
                           plan.expert_tensor, plan.expert * plan.expert_tensor, devices, stage),
               fmt::format("the experts' grid is laid over a stage's devices: use degrees whose product divides {}",
                           plan.context > 1 ? "tensor x context x data" : "tensor x data"));
  }
  if (plan.tensor > 1 && !plan.sequence_parallel) {
    sink.error(plan.expert_tensor_at, key,
               fmt::format("on the experts' own grid each of the {} tensor ranks dispatches its share of the tokens, "
                           "which sequence parallelism gives it, and sequence_parallel is false",
                           plan.tensor),
               "set training.parallelism.sequence_parallel: true, or leave expert_tensor out");
  }
  if (s.training.overlap_parameter_gather && plan.expert == 1) {
    sink.error(s.training.overlap_parameter_gather_at, "training.overlap_parameter_gather",
               "gathers overlapped with the forward pass are not simulated with expert tensor parallelism yet",
               "leave overlap_parameter_gather out, or leave expert_tensor out");
  }
  if (plan.expert_tensor > 1) {
    check_gather_pair(s, registries, "expert tensor parallelism allgathers and reduce-scatters the routed tokens",
                      "use ring, or expert_tensor: 1", sink);
  }
  if (profile == nullptr) return true;
  const models::TransformerShape& shape = profile->shape;
  if (shape.experts == 0) {
    sink.error(plan.expert_tensor_at, key,
               fmt::format("expert tensor parallelism splits a mixture's routed experts, and '{}' has none",
                           s.model.kind.value),
               "use a mixture (profile:mixtral_8x7b, profile:deepseek_v3, or model.experts on profile:gpt or "
               "profile:llama), or leave expert_tensor out");
    return true;
  }
  if (shape.feed_forward % plan.expert_tensor != 0) {
    std::vector<int> fits;
    for (int et = 2; et <= shape.feed_forward && et <= 64; ++et) {
      if (shape.feed_forward % et == 0 && stage % (plan.expert * et) == 0) fits.push_back(et);
    }
    sink.error(plan.expert_tensor_at, key,
               fmt::format("an expert tensor degree of {} does not divide {}'s expert feed-forward width of {} "
                           "channels",
                           plan.expert_tensor, s.model.kind.value, shape.feed_forward),
               fits.empty() ? std::string("use expert_tensor: 1")
                            : fmt::format("use a degree that divides the experts' width and tensor x data / expert: {}",
                                          fmt::join(fits, ", ")));
  }
  return true;
}

/// Uneven routing or a capacity: drawn over an expert group's devices, exchanged by uneven direct all-to-alls.
void check_routing(const scenario::Scenario& s, core::DiagnosticSink& sink) {
  if (s.training.routing.even()) return;
  if (!s.model.timing_only) {
    sink.error(s.training.routing_at, "training.routing",
               fmt::format("routing is drawn for a timing-only mixture's experts, and '{}' trains for real (a moe "
                           "model routes each sample by its gate)",
                           s.model.kind.value),
               "leave training.routing out");
    return;
  }
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  if (plan.expert < 2) {
    sink.error(s.training.routing_at, "training.routing",
               "uneven routing and expert capacity are simulated over an expert group's devices, and there is none "
               "(training.parallelism.expert: 1)",
               "set training.parallelism.expert above 1, or leave training.routing out");
  } else if (plan.all_to_all.value != "direct") {
    sink.error(plan.all_to_all.where, "training.parallelism.all_to_all",
               fmt::format("uneven routing exchanges pieces of different sizes, which the direct all-to-all times and "
                           "'{}' does not yet",
                           plan.all_to_all.value),
               "use all_to_all: direct, or leave training.routing out");
  }
}

/// Group-limited routing over the mixture's experts, and the deduplicating dispatcher, which sends each token once
/// per machine under even routing.
void check_dispatch(const scenario::Scenario& s, const models::TransformerShape& shape, core::DiagnosticSink& sink) {
  const models::RoutingSpec& routing = s.training.routing;
  const std::string key = "training.routing";
  if ((routing.groups > 0) != (routing.group_limit > 0)) {
    sink.error(s.training.routing_at, key, "group-limited routing takes both the groups and the group limit",
               "give training.routing.groups and group_limit together (DeepSeek-V3: 8 and 4), or neither");
  } else if (routing.groups > 0 && (shape.experts % routing.groups != 0 || routing.group_limit > routing.groups ||
                                    routing.group_limit * (shape.experts / routing.groups) < shape.top_k)) {
    sink.error(s.training.routing_at, key,
               fmt::format("{} groups of {}'s {} experts, a token's {} among {} of them: the groups must divide the "
                           "experts and the chosen groups hold at least top_k experts",
                           routing.groups, s.model.kind.value, shape.experts, shape.top_k, routing.group_limit),
               "use groups that divide the experts and a group_limit of groups holding top_k experts or more");
  }
  if (s.training.token_dispatcher != scenario::TokenDispatcher::DeepEp) return;
  if (!routing.even()) {
    sink.error(s.training.token_dispatcher_at, "training.token_dispatcher",
               "the deepep dispatcher is simulated under even routing, and the routing is drawn unevenly or capped",
               "leave training.routing's distribution and capacity_factor out, or use token_dispatcher: all_to_all");
  }
}

/// Why the layers could not be cut into the run's (virtual) stages, at the key that says how: the pipeline's degree
/// where they are balanced by FLOPs (too many stages), the split's or the layout's where it is declared.
void check_stage_split_failure(const scenario::Scenario& s, const models::ModelProfile& profile, const std::string& why,
                               core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const int chunks = models::model_stages(plan.schedule, plan.pipeline, plan.virtual_stages);
  switch (plan.stage_split.kind) {
    case models::StageSplit::Kind::Flops:
      sink.error(plan.pipeline_at, "training.parallelism.pipeline", why,
                 plan.virtual_stages > 1 ? "use fewer stages or virtual stages" : "use fewer stages");
      return;
    case models::StageSplit::Kind::Even:
      sink.error(plan.stage_split_at, "training.parallelism.pipeline_split", why,
                 fmt::format("use a pipeline x virtual_stages (now {}) that divides {}'s {} blocks (with the embedding "
                             "and the loss where pipeline_split_counts lists them), a pipeline_layout, or "
                             "pipeline_split: flops",
                             chunks, s.model.kind.value, profile.shape.layers));
      return;
    case models::StageSplit::Kind::Layout:
      sink.error(plan.stage_split_at, "training.parallelism.pipeline_layout", why,
                 fmt::format("name pipeline x virtual_stages = {} stages, holding {}'s {} blocks in all", chunks,
                             s.model.kind.value, profile.shape.layers));
      return;
  }
}

/// The axis a model-parallel run's refusals name: the pipeline where there is one, else the first other axis that
/// splits the model (in the enum's order: tensor, expert, context) with a degree above 1.
const scenario::AxisEntry& refused_axis(const scenario::ParallelismSpec& plan) {
  std::vector<scenario::ParallelAxis> order{scenario::ParallelAxis::Pipeline};
  for (const scenario::ParallelAxis axis : scenario::declaration_order()) {
    const bool splits_model = !scenario::has(scenario::axis_entry(axis).splits, scenario::Splits::Batch);
    if (axis != scenario::ParallelAxis::Pipeline && splits_model) order.push_back(axis);
  }
  for (const scenario::ParallelAxis axis : order) {
    if (scenario::declared_degree(plan, axis) > 1) return scenario::axis_entry(axis);
  }
  return scenario::axis_entry(order.back());
}

}  // namespace

void check_model_parallel(const scenario::Scenario& s, const sync::SyncStrategy& strategy,
                          const models::ModelProfile* profile, const Registries& registries, core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  check_routing(s, sink);
  if (plan.expert_tensor_declared && !check_expert_tensor(s, profile, registries, sink)) return;
  if (!plan.is_model_parallel()) {
    check_without_model_parallelism(s, registries, sink);
    return;
  }
  if (plan.context > 1 && !s.model.timing_only) {
    sink.error(plan.context_at, "training.parallelism.context",
               fmt::format("context parallelism splits a timing-only transformer's sequences (model.kind: profile:...) "
                           "in this version, and '{}' trains for real",
                           s.model.kind.value),
               "use a transformer profile such as profile:llama, or context: 1");
    return;
  }
  if (plan.expert > 1 && !s.model.timing_only && !check_real_math_experts(s, sink)) return;
  const bool pipelined = plan.pipeline > 1;
  const scenario::AxisEntry& named = refused_axis(plan);
  const std::string key = "training.parallelism." + std::string(named.name);
  const core::SourcePosition at = plan.*(named.declared_at);
  const std::string what(named.refused_as);
  if (!s.model.timing_only && !check_real_math_split(s, at, key, what, sink)) return;
  if (!strategy.bulk_synchronous()) {
    sink.error(s.training.sync_strategy.where, "training.sync.strategy",
               fmt::format("{} run bulk-synchronous steps (bsp), and the strategy is '{}'", what,
                           s.training.sync_strategy.value),
               "use training.sync.strategy: bsp");
  }
  if (s.training.architecture != scenario::Architecture::Allreduce) {
    sink.error(s.training.architecture_at, "training.architecture.kind",
               "model-parallel replicas average their gradients by allreduce",
               "use training.architecture.kind: allreduce");
  }
  if (plan.zero == 3) {
    // Stage 3 would gather each layer before every micro-batch's passes; stages 1 and 2 partition the
    // optimizer state and gradients over the replicas as Megatron-LM's distributed optimizer does.
    sink.error(plan.zero_at, "training.parallelism.zero",
               fmt::format("ZeRO stage 3 inside {} is not simulated yet", pipelined ? "a pipeline" : what),
               "use training.parallelism.zero: 1 or 2 with a pipeline or tensor parallelism");
  }
  if (s.failures.enabled && !s.failures_projected()) {
    sink.error(s.failures.where, "failures", "failures of model-parallel workers are not simulated yet",
               fmt::format("remove failures, or {}", key));
  }
  check_microbatches_divide(s, sink);
  check_schedule(s, sink);
  // A real model's own shape is checked once it is made; a profile's own problem by check_profile_run.
  if (profile == nullptr) return;
  check_tensor(s, *profile, registries, sink);
  if (plan.expert > 1) check_experts(s, profile->shape.experts, sink);
  if (plan.expert > 1 && profile->shape.experts > 0) check_dispatch(s, profile->shape, sink);
  if (plan.expert > 1 && s.training.token_dispatcher == scenario::TokenDispatcher::AllGather) {
    check_gather_pair(s, registries, "the all_gather token dispatcher allgathers the tokens and reduce-scatters the outputs",
                      "use ring, or token_dispatcher: all_to_all", sink);
  }
  if (plan.context > 1) check_context(s, *profile, registries, sink);
  try {
    static_cast<void>(models::split_into_stages(
        *profile, models::model_stages(plan.schedule, plan.pipeline, plan.virtual_stages), plan.stage_split));
  } catch (const std::invalid_argument& error) {
    check_stage_split_failure(s, *profile, error.what(), sink);
  }
}

}  // namespace dtsim::checks
