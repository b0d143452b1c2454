#include "sim/app/scenario_resolver.hpp"

#include "sim/core/name_match.hpp"
#include "sim/runtime/network_backend.hpp"
#include "sim/runtime/platform_spec.hpp"
#include "sim/scenario/scenario_builder.hpp"

#include "sim/app/compute_backend.hpp"
#include "sim/app/failure_checks.hpp"
#include "sim/app/memory_checks.hpp"
#include "sim/app/scenario_data.hpp"
#include "sim/comm/library_collective.hpp"
#include "models/model_profile.hpp"
#include "models/pipeline_plan.hpp"
#include "models/split_mlp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>

namespace dtsim::app {
namespace {

/// Iterations until the first stop condition that this version simulates (epochs, iterations).
std::int64_t total_iterations(const scenario::TrainingSpec& training, std::int64_t iterations_per_epoch) {
  std::int64_t total = std::numeric_limits<std::int64_t>::max();
  if (training.epochs) total = std::min(total, *training.epochs * iterations_per_epoch);
  if (training.iterations) total = std::min(total, *training.iterations);
  return total;
}

/// The scenario's synchronization strategy, configured from `training.sync`.
std::unique_ptr<sync::SyncStrategy> make_strategy(const scenario::Scenario& s, const Registries& registries) {
  return registries.strategies.find(s.training.sync_strategy.value).factory.make(s.training.sync_parameters);
}

/// The scenario's optimizer, configured from `training.optimizer`, for each holder of parameters to make its own.
std::function<std::unique_ptr<models::Optimizer>(std::size_t)> optimizer_factory(const scenario::Scenario& s,
                                                                                 const Registries& registries) {
  // The setup may outlive the registries (tests keep it): it holds its own copy of the factory.
  return [make = registries.optimizers.find(s.training.optimizer.kind.value).factory.make,
          rate = s.training.optimizer.learning_rate, values = s.training.optimizer.parameters](std::size_t size) {
    return make(rate, values, size);
  };
}

/// What a timing-only run needs: an allreduce with bsp or local SGD (the loops that run without values),
/// a number of iterations, no loss target, a sequence the model has positions for.
void check_profile_run(const scenario::Scenario& s, const sync::SyncStrategy& strategy, const models::ModelPlugin& model,
                       core::DiagnosticSink& sink) {
  if (s.training.architecture != scenario::Architecture::Allreduce) {
    sink.error(s.training.architecture_at, "training.architecture.kind",
               fmt::format("timing-only profiles run on an allreduce for now, and the architecture is '{}'",
                           scenario::to_string(s.training.architecture)),
               "use training.architecture.kind: allreduce");
  }
  if (!strategy.lock_step() || strategy.gossip()) {
    sink.error(s.training.sync_strategy.where, "training.sync.strategy",
               fmt::format("timing-only profiles run bsp and local_sgd for now, and the strategy is '{}'",
                           s.training.sync_strategy.value),
               "use training.sync.strategy: bsp or local_sgd");
  }
  if (!s.training.iterations) {
    sink.error(s.training.batch_at, "training.stop.iterations",
               "a timing-only profile stops after a number of iterations, and none is given",
               "add training.stop.iterations");
  }
  if (s.target_loss) {
    sink.error(s.target_loss_at, "outputs.target_loss", "a timing-only profile computes no loss to reach",
               "remove outputs.target_loss");
  }
  const core::View section(&s.model.section, "model");
  try {
    static_cast<void>(model.profile(section));
  } catch (const models::ProfileError& error) {
    sink.error(section.where(error.key()), "model." + error.key(), error.what(), error.hint());
  } catch (const std::invalid_argument& error) {
    sink.error(s.model.kind.where, "model.kind", error.what());
  }
}

/// ZeRO (`training.parallelism.zero` 1 to 3) partitions the state of bulk-synchronous steps of a timing-only
/// model, and moves it with the architecture's algorithm for reduce-scatter and allgather.
void check_zero(const scenario::Scenario& s, const sync::SyncStrategy& strategy, const Registries& registries,
                core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& parallelism = s.training.parallelism;
  if (parallelism.zero == 0) return;
  if (!s.model.timing_only) {
    sink.error(parallelism.zero_at, "training.parallelism.zero",
               fmt::format("ZeRO runs on timing-only models in this version, and '{}' trains for real",
                           s.model.kind.value),
               "use a model.kind: profile:..., or training.parallelism.zero: 0");
    return;
  }
  if (strategy.local_steps() > 0) {
    sink.error(parallelism.zero_at, "training.parallelism.zero",
               fmt::format("ZeRO partitions the state of bulk-synchronous steps, and '{}' keeps a whole model on "
                           "every worker between its averages",
                           s.training.sync_strategy.value),
               "use training.sync.strategy: bsp, or training.parallelism.zero: 0");
  }
  const std::string& algorithm = s.training.allreduce_algorithm.value;
  const comm::CollectiveRegistry& reduce_scatter = registries.collectives.of(comm::Operation::reduce_scatter);
  const comm::CollectiveRegistry& allgather = registries.collectives.of(comm::Operation::allgather);
  if (!reduce_scatter.contains(algorithm) || !allgather.contains(algorithm)) {
    std::vector<std::string> both;
    for (const std::string& name : reduce_scatter.names()) {
      if (allgather.contains(name)) both.push_back(name);
    }
    sink.error(s.training.allreduce_algorithm.where, "training.architecture.algorithm",
               fmt::format("ZeRO runs a reduce-scatter and an allgather with the architecture's algorithm, and '{}' "
                           "has no such pair",
                           algorithm),
               fmt::format("use an algorithm with all three operations: {}", core::join_names(both)));
  }
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
    const std::string& algorithm = s.training.allreduce_algorithm.value;
    if (!registries.collectives.of(comm::Operation::reduce_scatter).contains(algorithm) ||
        !registries.collectives.of(comm::Operation::allgather).contains(algorithm)) {
      sink.error(s.training.allreduce_algorithm.where, "training.architecture.algorithm",
                 fmt::format("sequence parallelism reduce-scatters and allgathers with the architecture's algorithm, "
                             "and '{}' has no such pair",
                             algorithm),
                 "use ring, or sequence_parallel: false");
    }
  }
}

/// Why gradient buckets cannot be allreduced during the backward pass of this run; empty when they can.
std::string why_no_overlap(const scenario::Scenario& s, const sync::SyncStrategy& strategy) {
  if (!s.model.timing_only) {
    return fmt::format("'{}' trains for real, and overlap needs a layer table to say when each gradient is ready",
                       s.model.kind.value);
  }
  if (s.training.architecture != scenario::Architecture::Allreduce) return "overlap buckets an allreduce's gradients";
  if (!strategy.lock_step() || strategy.local_steps() > 0 || strategy.gossip()) {
    return fmt::format("overlap allreduces every step's gradients (bsp), and the strategy is '{}'",
                       s.training.sync_strategy.value);
  }
  if (s.failures.enabled) return "overlap with failures is not simulated yet";
  return {};
}

/// A dense classifier split for real: a stage per layer at most, and every layer split by output rows a
/// width the tensor group divides.
void check_split_classifier(const scenario::Scenario& s, const models::DenseClassifier& model,
                            core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const std::size_t layers = model.widths().size() - 1;
  std::vector<std::size_t> first;
  try {
    first = models::split_layers(layers, plan.pipeline);
  } catch (const std::invalid_argument& error) {
    sink.error(plan.pipeline_at, "training.parallelism.pipeline", error.what(),
               fmt::format("use at most {} stages, or more hidden layers (model.layers)", layers));
    return;
  }
  try {
    for (int stage = 0; stage < plan.pipeline; ++stage) {
      static_cast<void>(models::StageShare(model, first[static_cast<std::size_t>(stage)],
                                           first[static_cast<std::size_t>(stage) + 1], plan.tensor, 0));
    }
  } catch (const std::invalid_argument& error) {
    sink.error(plan.tensor_at, "training.parallelism.tensor", error.what(),
               "use hidden widths (model.layers) that the tensor degree divides");
  }
}

/// Recomputation drops a transformer's activations: it needs a timing-only transformer profile.
void check_recomputation(const scenario::Scenario& s, const Registries& registries, core::DiagnosticSink& sink) {
  if (s.training.recomputation == "none") return;
  const std::string key = "training.recomputation";
  if (!s.model.timing_only) {
    sink.error(s.training.recomputation_at, key,
               fmt::format("recomputation runs on timing-only models in this version, and '{}' trains for real",
                           s.model.kind.value),
               "use a model.kind: profile:..., or training.recomputation: none");
    return;
  }
  try {
    const auto profile = registries.models.find(s.model.kind.value).factory.profile(core::View(&s.model.section, "model"));
    if (profile.shape.heads == 0) {
      sink.error(s.training.recomputation_at, key,
                 fmt::format("recomputation drops transformer blocks' activations, and '{}' has no blocks",
                             s.model.kind.value),
                 "use a transformer profile, or training.recomputation: none");
    }
  } catch (const std::invalid_argument&) {
    // the sequence length's own check names it
  }
}

/// Micro-batch passes one step may hold message by message, micro-batches x model chunks x stages: SimGrid's
/// cost per activity grows with the activities a step has open, so a step's wall time grows faster than its
/// micro-batches (8 stages of GPT-2: 2,048 micro-batches 2.0 s, 4,096 13.5 s, 16,384 180 s; 2 stages: 8,000
/// 0.35-0.52 s, 32,000 6.9-12.8 s). At the bound a step takes seconds; docs/limits.md.
constexpr std::int64_t kStepPassLimit = 16'384;
/// Micro-batch passes a whole run may simulate (the step's, times tensor ranks and iterations): some two
/// minutes at the bound, at the 2 s measured for a step of 16,384 passes (8 stages x 2,048).
constexpr double kRunPassLimit = 1e6;

/// Refuses a pipeline whose steps or run hold more micro-batch passes than simulate in reasonable time,
/// naming the figure: `microbatches: 1000000` on 2 stages ran over 10 minutes here before it was stopped.
void check_simulated_passes(const scenario::Scenario& s, core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const std::int64_t step = static_cast<std::int64_t>(plan.microbatches) * plan.virtual_stages * plan.pipeline;
  const double run = static_cast<double>(step) * plan.tensor * static_cast<double>(s.training.iterations.value_or(1));
  const char* hint = "use fewer, larger micro-batches (or fewer iterations): a pipeline's bubble and time per sample "
                     "change little once its micro-batches are many times its stages";
  // A network that times phases at once keeps no SimGrid activity per message: its steps have no such bound.
  const bool message_by_message = !runtime::network_backend(s.topology.network_model).times_phases_at_once();
  if (message_by_message && step > kStepPassLimit) {
    sink.error(plan.microbatches_at, "training.parallelism.microbatches",
               fmt::format("{} micro-batches x {} chunk(s) x {} stage(s) are {} micro-batch passes a step, more than the "
                           "{} a step may simulate message by message",
                           plan.microbatches, plan.virtual_stages, plan.pipeline, step, kStepPassLimit),
               std::string(hint) + "; or use topology.network_model: analytical");
  } else if (run > kRunPassLimit) {
    sink.error(plan.microbatches_at, "training.parallelism.microbatches",
               fmt::format("{} micro-batch passes a step x {} tensor rank(s) x {} iteration(s) are {:.3g} passes, more "
                           "than the {:.0e} a run may simulate",
                           step, plan.tensor, s.training.iterations.value_or(1), run, kRunPassLimit),
               hint);
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
  if (plan.schedule == "interleaved_1f1b" || plan.schedule == "zero_bubble" || plan.virtual_stages > 1) {
    sink.error(plan.virtual_stages > 1 ? plan.virtual_stages_at : plan.schedule_at,
               plan.virtual_stages > 1 ? "training.parallelism.virtual_stages" : "training.parallelism.schedule",
               plan.virtual_stages > 1
                   ? std::string("virtual stages split a pipeline's stages into chunks, and there is one stage "
                                 "(pipeline: 1)")
                   : fmt::format("the '{}' schedule orders a pipeline's stages, and there is one stage (pipeline: 1)",
                                 plan.schedule),
               "set training.parallelism.pipeline above 1, or leave it out");
  }
}

/// Real math splits the dense classifiers (softmax regression and the MLP) across devices, under gpipe or
/// 1f1b, without ZeRO or sequence parallelism. False when the model is not one of them (nothing more to check).
bool check_real_math_split(const scenario::Scenario& s, const core::SourcePosition& at, const std::string& key,
                           const std::string& what, core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const std::string& kind = s.model.kind.value;
  if (kind != "mlp" && kind != "softmax_regression") {
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
  refuse(plan.schedule != "gpipe" && plan.schedule != "1f1b", plan.schedule_at, "training.parallelism.schedule",
         fmt::format("a model trained for real runs the gpipe or 1f1b schedule, and the schedule is '{}'",
                     plan.schedule),
         "use schedule: 1f1b");
  refuse(plan.zero > 0, plan.zero_at, "training.parallelism.zero", "ZeRO runs on timing-only models in this version",
         "use training.parallelism.zero: 0");
  refuse(plan.sequence_parallel, plan.sequence_parallel_at, "training.parallelism.sequence_parallel",
         "sequence parallelism splits transformer layers, and a dense classifier has none",
         "leave sequence_parallel out");
  return true;
}

/// The schedule against the virtual stages and the pipeline.
void check_schedule(const scenario::Scenario& s, core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const bool interleaved = plan.schedule == "interleaved_1f1b";
  if (interleaved != (plan.virtual_stages > 1)) {
    sink.error(interleaved ? plan.schedule_at : plan.virtual_stages_at,
               interleaved ? "training.parallelism.schedule" : "training.parallelism.virtual_stages",
               interleaved ? "the interleaved schedule runs several model chunks per device, and virtual_stages is 1"
                           : fmt::format("{} model chunks per device run under the interleaved schedule, and the "
                                         "schedule is '{}'",
                                         plan.virtual_stages, plan.schedule),
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
  if (plan.pipeline == 1 && (interleaved || plan.schedule == "zero_bubble")) {
    sink.error(plan.schedule_at, "training.parallelism.schedule",
               fmt::format("the '{}' schedule orders a pipeline's stages, and there is one stage", plan.schedule),
               "set training.parallelism.pipeline above 1, or leave schedule out");
  }
}

void check_model_parallel(const scenario::Scenario& s, const sync::SyncStrategy& strategy,
                          const Registries& registries, core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  if (!plan.is_model_parallel()) {
    check_without_model_parallelism(s, registries, sink);
    return;
  }
  const bool pipelined = plan.pipeline > 1;
  const std::string key = pipelined ? "training.parallelism.pipeline" : "training.parallelism.tensor";
  const core::SourcePosition at = pipelined ? plan.pipeline_at : plan.tensor_at;
  const std::string what = pipelined ? "pipelines" : "tensor-parallel groups";
  if (!s.model.timing_only && !check_real_math_split(s, at, key, what, sink)) return;
  if (!strategy.lock_step() || strategy.local_steps() > 0 || strategy.gossip()) {
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
               fmt::format("ZeRO stage 3 inside {} is not simulated yet", pipelined ? "a pipeline" : "tensor-parallel groups"),
               "use training.parallelism.zero: 1 or 2 with a pipeline or tensor parallelism");
  }
  if (s.failures.enabled) {
    sink.error(s.failures.where, "failures", "failures of model-parallel workers are not simulated yet",
               fmt::format("remove failures, or {}", key));
  }
  check_microbatches_divide(s, sink);
  check_schedule(s, sink);
  if (!s.model.timing_only) return;  // the model's own shape is checked once it is made
  models::ModelProfile profile;
  try {
    profile = registries.models.find(s.model.kind.value).factory.profile(core::View(&s.model.section, "model"));
  } catch (const std::invalid_argument&) {
    return;  // the sequence length's own check names it
  }
  check_tensor(s, profile, registries, sink);
  try {
    static_cast<void>(models::split_into_stages(profile, plan.pipeline * plan.virtual_stages));
  } catch (const std::invalid_argument& error) {
    sink.error(plan.pipeline_at, "training.parallelism.pipeline", error.what(),
               plan.virtual_stages > 1 ? "use fewer stages or virtual stages" : "use fewer stages");
  }
}

/// A link joining the two ends that `name` names ("b--a" for the link "a--b", or "a--b" for the one-way
/// "a->-b"): closer than any spelling suggestion, which would pick a neighbour's link.
std::optional<std::string> link_between_the_same_ends(const std::string& name, const topology::TopologyGraph& graph) {
  for (const std::string separator : {"->-", "--"}) {
    const std::size_t at = name.find(separator);
    if (at == std::string::npos) continue;
    const std::string first = name.substr(0, at);
    const std::string second = name.substr(at + separator.size());
    for (const std::string joint : {"--", "->-"}) {
      for (const std::string& candidate : {first + joint + second, second + joint + first}) {
        if (candidate != name && runtime::find_link(graph, candidate)) return candidate;
      }
    }
  }
  return std::nullopt;
}

/// Every link a trace, background traffic or a failure names exists in the topology built.
void check_link_names(const scenario::Scenario& s, const topology::TopologyGraph& graph, core::DiagnosticSink& sink) {
  std::vector<std::string> names;
  for (std::size_t id = 0; id < graph.link_count(); ++id) names.push_back(graph.link(id).name);
  const auto check = [&](const scenario::Located<std::string>& name, const std::string& key) {
    if (runtime::find_link(graph, name.value)) return;
    std::string hint = fmt::format("the '{}' topology's links are named like '{}' (see links.csv of a run)",
                                   s.topology.kind.value, names.empty() ? std::string() : names.front());
    if (const auto closest = core::closest_name(name.value, names)) hint = fmt::format("did you mean '{}'?", *closest);
    if (const auto same_ends = link_between_the_same_ends(name.value, graph)) {
      hint = fmt::format("did you mean '{}'? A link is named by its two ends in the topology's order", *same_ends);
    }
    sink.error(name.where, key, fmt::format("the topology has no link named '{}'", name.value), hint);
  };
  for (std::size_t i = 0; i < s.link_traces.size(); ++i) {
    for (std::size_t l = 0; l < s.link_traces[i].links.size(); ++l) {
      check(s.link_traces[i].links[l], fmt::format("link_traces[{}].links[{}]", i, l));
    }
  }
  for (std::size_t i = 0; i < s.background_traffic.size(); ++i) {
    for (std::size_t l = 0; l < s.background_traffic[i].links.size(); ++l) {
      check(s.background_traffic[i].links[l], fmt::format("background_traffic[{}].links[{}]", i, l));
    }
  }
  for (const scenario::LinkFailure& failure : s.failures.link_events) check(failure.link, "failures.events.target");
}

/// `network_model: analytical` and `closed_form` time the timing-only collectives and a pipeline's messages;
/// everything they would leave to SimGrid message by message, or could not see, is refused rather than timed
/// otherwise.
void check_analytical_network(const scenario::Scenario& s, const Registries& registries, core::DiagnosticSink& sink) {
  const runtime::NetworkBackend& backend = runtime::network_backend(s.topology.network_model);
  if (!backend.times_phases_at_once()) return;
  const auto refuse = [&](const std::string& why, const std::string& hint) {
    sink.error(s.topology.network_model_at, "topology.network_model", backend.times_only() + " " + why, hint);
  };
  const std::string use_alpha_beta = "use network_model: alpha_beta, which times every message";
  const std::string& algorithm = s.training.allreduce_algorithm.value;
  if (!s.model.timing_only) {
    refuse(fmt::format("times the collectives of timing-only runs, and '{}' trains for real, its values sent message "
                       "by message",
                       s.model.kind.value),
           use_alpha_beta);
  } else if (s.training.architecture != scenario::Architecture::Allreduce) {
    refuse("times allreduce collectives, and a parameter server's pushes and pulls are messages", use_alpha_beta);
  } else if (registries.collectives.allreduce.contains(algorithm) &&
             !registries.collectives.allreduce.find(algorithm).factory.timed_at_once) {
    refuse(fmt::format("times ring phases and steps of the whole group, and '{}' sends its messages one by one",
                       algorithm),
           "use another training.architecture.algorithm (every one but double_binary_tree), or " + use_alpha_beta);
  } else if (s.failures.enabled || !s.background_traffic.empty() || !s.link_traces.empty()) {
    refuse("shares the links among a phase's own flows only: failures, background traffic and link traces would go "
           "unseen",
           use_alpha_beta);
  } else if (s.energy.enabled && s.energy.link_busy_power) {
    refuse("times phases without loading SimGrid's links, so energy.link_busy_power would count none of their bytes",
           "leave link_busy_power out (link_idle_power is counted), or " + use_alpha_beta);
  }
}

/// What checking a scenario builds, handed on to the run so that nothing is built twice: the topology, the
/// strategy, the data (a corpus tokenised once) and the model.
struct Prepared {
  topology::TopologyGraph graph;
  std::unique_ptr<sync::SyncStrategy> strategy;
  LoadedData data;                                 ///< empty for timing-only runs
  std::unique_ptr<models::TrainableModel> model;   ///< null for timing-only runs
  std::vector<metrics::DeviceMemory> memory;       ///< timing-only runs
};

/// The overlaps a scenario asks for that its run cannot do.
void check_overlaps(const scenario::Scenario& s, const sync::SyncStrategy& strategy, core::DiagnosticSink& sink) {
  if (s.training.overlap.value_or(false)) {
    if (const std::string why = why_no_overlap(s, strategy); !why.empty()) {
      sink.error(s.training.overlap_at, "training.overlap", why, "leave training.overlap out, or set it to false");
    }
  }
  if (s.training.overlap_parameter_gather) {
    const scenario::ParallelismSpec& plan = s.training.parallelism;
    const std::string why =
        !s.model.timing_only ? fmt::format("'{}' trains for real, and only timing-only runs partition their state", s.model.kind.value)
        : plan.zero != 1 && plan.zero != 2 ? fmt::format("ZeRO stage {} gathers no updated parameters after the step", plan.zero)
        : plan.data < 2 ? std::string("one data-parallel replica holds every parameter: there is nothing to gather")
                        : std::string();
    if (!why.empty()) {
      sink.error(s.training.overlap_parameter_gather_at, "training.overlap_parameter_gather", why,
                 "set training.parallelism.zero to 1 or 2 over several replicas, or leave overlap_parameter_gather out");
    }
  }
  if (s.training.overlap_tensor_communication && !s.training.parallelism.sequence_parallel) {
    sink.error(s.training.overlap_tensor_communication_at, "training.overlap_tensor_communication",
               s.training.parallelism.tensor < 2
                   ? "there is no tensor group (tensor: 1), so no tensor communication to overlap"
                   : "only sequence parallelism's gathers and reduce-scatters are overlapped with the products",
               s.training.parallelism.tensor < 2
                   ? "set training.parallelism.tensor above 1 with sequence_parallel: true, or leave "
                     "overlap_tensor_communication out"
                   : "set training.parallelism.sequence_parallel: true, or leave overlap_tensor_communication out");
  }
}

/// A parameter server's or a hybrid's servers: enough of them, each with something to hold.
void check_servers(const scenario::Scenario& s, const topology::TopologyGraph& graph, const models::TrainableModel* model,
                   const std::optional<models::SparseLayout>& layout, core::DiagnosticSink& sink) {
  const scenario::Architecture architecture = s.training.architecture;
  const std::string architecture_name(scenario::to_string(architecture));
  if (scenario::has_servers(architecture) && graph.servers().empty()) {
    sink.error(s.training.architecture_at, "training.architecture.kind",
               fmt::format("a {} architecture needs a server, and a '{}' topology has none", architecture_name,
                           s.topology.kind.value),
               "declare a node with kind: server in topology.nodes (the other topologies attach "
               "cluster.servers to their host ports themselves)");
  }
  if (scenario::has_servers(architecture) && !graph.servers().empty() && model) {
    const auto servers = static_cast<int>(graph.servers().size());
    // Servers hold parameters (parameter_server) or rows (hybrid), split by range.
    const bool rows = architecture == scenario::Architecture::Hybrid && layout;
    const std::size_t units = rows ? layout->rows : model->parameter_count();
    if (servers < s.training.shards) {
      sink.error(s.training.shards_at, "training.architecture.shards",
                 fmt::format("{} shards need one server each, and the topology has {}", s.training.shards, servers),
                 "declare more nodes of kind server, or lower shards");
    } else if (static_cast<std::size_t>(s.training.shards) > units) {
      sink.error(s.training.shards_at, "training.architecture.shards",
                 fmt::format("{} shards of a model with {} {} would leave a server without any", s.training.shards,
                             units, rows ? "sparse rows" : "parameters"),
                 fmt::format("use at most {} shards", units));
    }
  }
  if (architecture == scenario::Architecture::Hybrid && model) {
    if (!layout) {
      sink.error(s.training.architecture_at, "training.architecture.kind",
                 fmt::format("hybrid sends sparse rows through servers, and '{}' has no sparse parameters",
                             s.model.kind.value),
                 "use a model with embeddings (matrix_factorization), or training.architecture.kind: allreduce");
    } else if (layout->rows > (std::size_t{1} << 24U)) {
      sink.error(s.training.architecture_at, "training.architecture.kind",
                 fmt::format("hybrid row ids travel as 32-bit floats, exact up to 2^24 rows, and the model has {}",
                             layout->rows),
                 "use fewer users and items");
    }
  }
}

/// The sync strategy against the architecture (and gossip against the topology).
void check_strategy_on_architecture(const scenario::Scenario& s, const sync::SyncStrategy& strategy,
                                    const topology::TopologyGraph& graph, core::DiagnosticSink& sink) {
  const scenario::Architecture architecture = s.training.architecture;
  // The hybrid loop exchanges every worker's gradient every step, in lock step: bulk-synchronous updates.
  const bool bulk_synchronous = strategy.lock_step() && strategy.local_steps() == 0 && !strategy.gossip();
  if (architecture == scenario::Architecture::Hybrid && !bulk_synchronous) {
    sink.error(s.training.sync_strategy.where, "training.sync.strategy",
               fmt::format("the hybrid architecture runs bulk-synchronous updates (bsp) only, and the strategy is '{}'",
                           s.training.sync_strategy.value),
               "use training.sync.strategy: bsp, or training.architecture.kind: parameter_server or allreduce");
  }
  if (s.training.architecture == scenario::Architecture::ParameterServer && strategy.local_steps() > 0) {
    sink.error(s.training.sync_strategy.where, "training.sync.strategy",
               fmt::format("'{}' averages the workers' models by allreduce, and the architecture is a parameter server",
                           s.training.sync_strategy.value),
               "use training.architecture.kind: allreduce");
  }
  if (strategy.gossip()) {
    if (architecture == scenario::Architecture::ParameterServer) {
      sink.error(s.training.sync_strategy.where, "training.sync.strategy",
                 "gossip exchanges models between neighbouring workers, and the architecture is a parameter server",
                 "use training.architecture.kind: allreduce (peer to peer)");
    }
    for (std::size_t rank = 0; rank < graph.workers().size(); ++rank) {
      if (topology::worker_neighbours(graph, static_cast<int>(rank)).empty()) {
        sink.error(s.training.sync_strategy.where, "training.sync.strategy",
                   fmt::format("gossip needs workers linked to workers, and worker {} of the '{}' topology has no "
                               "link to another worker",
                               rank, s.topology.kind.value),
                   "use a peer-to-peer topology: ring, mesh, torus, random_regular, or custom worker links");
        break;
      }
    }
  }
  if (s.training.architecture == scenario::Architecture::Allreduce && !strategy.runs_on_allreduce()) {
    sink.error(s.training.sync_strategy.where, "training.sync.strategy",
               fmt::format("'{}' needs a parameter server to apply updates as they arrive, and the architecture is "
                           "allreduce",
                           s.training.sync_strategy.value),
               "use training.architecture.kind: parameter_server, or a strategy that runs on an allreduce: bsp, ssp, "
               "local_sgd, gossip");
  }

}

/// The data read: a validation set, and enough training samples for one batch on every worker.
void check_batches_fill(const scenario::Scenario& s, const DataShape& data, const Registries& registries,
                        core::DiagnosticSink& sink) {
  const std::size_t validation = validation_count(s, data);
  const std::size_t train = data.samples - validation;
  const auto needed = static_cast<std::size_t>(s.cluster.workers) * static_cast<std::size_t>(s.training.batch_per_worker);
  if (validation == 0) {
    sink.error(s.data.validation_fraction_at, "data.validation_fraction",
               fmt::format("leaves no validation samples out of {}", data.samples),
               "raise data.validation_fraction or data.samples");
  }
  if (train < needed) {
    // Generated data have a sample count to raise; read data have the samples their file has.
    const bool generated = registries.data_sets.find(s.data.kind.value).factory.generated;
    const core::SourcePosition samples_at = core::View(&s.data.section, "data").where("samples");
    sink.error(generated ? samples_at : s.data.kind.where, generated ? "data.samples" : "data.kind",
               fmt::format("{} training samples cannot fill one batch of {} on each of {} workers ({} needed)", train,
                           s.training.batch_per_worker, s.cluster.workers, needed),
               generated ? "raise data.samples, or lower training.batch.per_worker or cluster.workers"
                         : "lower training.batch.per_worker or cluster.workers");
  }
}

Prepared prepare_and_check(const scenario::Scenario& scenario, const Registries& registries) {
  const auto& s = scenario;
  core::DiagnosticSink sink;
  // The schema has already rejected names this version does not simulate, so a failed lookup here is
  // a registry out of step with the schema: an internal error, caught by the registries' test.
  Prepared prepared{.graph = scenario::build_topology(s, registries.topologies),
                    .strategy = make_strategy(s, registries),
                    .data = {},
                    .model = nullptr,
                    .memory = {}};
  const topology::TopologyGraph& graph = prepared.graph;
  const sync::SyncStrategy* strategy = prepared.strategy.get();
  check_backend(s, registries.models, sink);
  check_link_names(s, graph, sink);
  check_analytical_network(s, registries, sink);
  check_failures(s, *strategy, sink);
  check_zero(s, *strategy, registries, sink);
  check_model_parallel(s, *strategy, registries, sink);
  check_overlaps(s, *strategy, sink);
  check_recomputation(s, registries, sink);
  if (s.model.timing_only) {
    const models::ModelPlugin& entry = registries.models.find(s.model.kind.value).factory;
    check_profile_run(s, *strategy, entry, sink);
    if (sink.empty()) {
      prepared.memory = device_memory(s, entry.profile(core::View(&s.model.section, "model")), registries);
      check_memory(s, prepared.memory, sink);
    }
    sink.throw_if_any();
    return prepared;
  }

  // A data file at fault is reported with the problems found without it; the checks that need its samples
  // (the model's shape, a batch's size) wait until it can be read.
  bool data_read = true;
  try {
    prepared.data = load_data(s, registries.data_sets);
  } catch (const core::InputError& error) {
    for (const core::Diagnostic& d : error.diagnostics()) sink.error(d.where, d.key, d.message, d.hint);
    data_read = false;
  }
  const DataShape& data = prepared.data.shape;
  // Built only for data it can train on (its shape comes from the data).
  if (data_read) prepared.model = make_model(s, data, registries.models, sink);
  const models::TrainableModel* model = prepared.model.get();
  const std::optional<models::SparseLayout> layout = model ? model->sparse_layout() : std::nullopt;
  if (const auto* dense = dynamic_cast<const models::DenseClassifier*>(model);
      dense != nullptr && s.training.parallelism.is_model_parallel()) {
    check_split_classifier(s, *dense, sink);
  }

  check_servers(s, graph, model, layout, sink);
  check_strategy_on_architecture(s, *strategy, graph, sink);

  if (!data_read) sink.throw_if_any();
  check_batches_fill(s, data, registries, sink);
  sink.throw_if_any();
  return prepared;
}

/// The scenario's algorithm for `operation`, run as its communication library runs it.
std::unique_ptr<comm::CollectiveAlgorithm> collective(const scenario::Scenario& s, const Registries& registries,
                                                      comm::Operation operation) {
  return as_library_runs_it(s.training.communication_library, s,
                            registries.collectives.of(operation).find(s.training.allreduce_algorithm.value).factory.make());
}

/// The architecture's algorithm for `operation`, in a ZeRO run; null otherwise.
std::unique_ptr<comm::CollectiveAlgorithm> zero_collective(const scenario::Scenario& s, const Registries& registries,
                                                           comm::Operation operation) {
  // ZeRO and sequence parallelism reduce-scatter and allgather with the architecture's algorithm.
  if (s.training.parallelism.zero == 0 && !s.training.parallelism.sequence_parallel) return nullptr;
  return collective(s, registries, operation);
}

}  // namespace

void check_scenario(const scenario::Scenario& scenario, const Registries& registries) {
  static_cast<void>(prepare_and_check(scenario, registries));
}

void check_every_point(const scenario::ScenarioDocument& document, const Registries& registries) {
  // The swept keys, as the document's sweep names them.
  std::vector<std::string> swept;
  if (const core::ConfigNode* sweep = document.resolved.find("sweep"); sweep != nullptr && sweep->is_map()) {
    if (const core::ConfigNode* axes = sweep->find("axes"); axes != nullptr) {
      for (const auto& axis : axes->entries) swept.push_back(axis.key);
    }
  }
  std::vector<core::Diagnostic> diagnostics;
  for (const auto& point : document.points) {
    try {
      check_scenario(point, registries);
    } catch (const core::InputError& error) {
      std::string origin;
      for (const std::string& path : swept) {
        const core::ConfigNode* value = find_dotted(point.resolved, path);
        if (value == nullptr) continue;
        origin += fmt::format("{}{} = {} at {}", origin.empty() ? "" : ", ", path, value->scalar,
                              core::format_position(value->where));
      }
      for (core::Diagnostic d : error.diagnostics()) {
        if (!point.sweep_point.empty()) {
          const std::string note = fmt::format("in sweep point {}: {}", point.sweep_point, origin);
          d.hint = d.hint.empty() ? note : d.hint + " (" + note + ")";
        }
        const bool seen = std::any_of(diagnostics.begin(), diagnostics.end(),
                                      [&](const core::Diagnostic& other) { return other.format() == d.format(); });
        if (!seen) diagnostics.push_back(std::move(d));
      }
    }
  }
  if (!diagnostics.empty()) throw core::InputError(std::move(diagnostics));
}

runtime::TrainingSetup resolve_scenario(const scenario::Scenario& scenario, const Registries& registries) {
  Prepared prepared = prepare_and_check(scenario, registries);
  const auto& s = scenario;
  if (s.model.timing_only) {
    // No data: one global batch stands for the schedule, and the run lasts training.stop.iterations.
    const auto workers = static_cast<std::size_t>(s.cluster.workers);
    const auto batch = static_cast<std::size_t>(s.training.batch_per_worker);
    const models::ModelProfile profile =
        registries.models.find(s.model.kind.value).factory.profile(core::View(&s.model.section, "model"));
    const bool overlap = s.training.overlap.value_or(why_no_overlap(s, *prepared.strategy).empty());
    return runtime::TrainingSetup{
        .graph = std::move(prepared.graph),
        .model = nullptr,
        .profile = profile,
        .sync = std::move(prepared.strategy),
        .make_optimizer = optimizer_factory(s, registries),
        .allreduce = collective(s, registries, comm::Operation::allreduce),
        .reduce_scatter = zero_collective(s, registries, comm::Operation::reduce_scatter),
        .allgather = zero_collective(s, registries, comm::Operation::allgather),
        .zero_stage = s.training.parallelism.zero,
        .stage_layers = s.training.parallelism.is_model_parallel()
                            ? models::split_into_stages(profile, s.training.parallelism.pipeline *
                                                                     s.training.parallelism.virtual_stages)
                            : std::vector<std::size_t>{},
        .memory = std::move(prepared.memory),
        .data = {},
        .schedule = models::BatchSchedule(workers * batch, s.cluster.workers, s.training.batch_per_worker, s.seed),
        .total_iterations = *s.training.iterations,
        .evaluate_every = *s.training.iterations,
        .backend_notice = "",
        .overlap = overlap,
        .bucket_bytes = s.training.bucket_bytes,
    };
  }
  const DataShape& data = prepared.data.shape;
  const std::size_t train = data.samples - validation_count(s, data);
  // A split model's replicas each take a batch; the devices of one replica share it.
  const bool split = s.training.parallelism.is_model_parallel();
  models::BatchSchedule schedule(train, split ? s.training.parallelism.data : s.cluster.workers,
                                 s.training.batch_per_worker, s.seed);
  const auto iterations_per_epoch = static_cast<std::int64_t>(schedule.iterations_per_epoch());
  models::SplitDataset data_set = prepared.data.data ? std::move(*prepared.data.data) : make_data(s, registries.data_sets);
  partition(s, schedule, data_set);
  std::unique_ptr<models::TrainableModel> model = std::move(prepared.model);
  std::string backend_notice = apply_backend(s, registries.models, *model);
  return runtime::TrainingSetup{
      .graph = std::move(prepared.graph),
      .model = std::move(model),
      .profile = std::nullopt,
      .sync = std::move(prepared.strategy),
      .make_optimizer = optimizer_factory(s, registries),
      .allreduce = scenario::has_allreduce(s.training.architecture) ? collective(s, registries, comm::Operation::allreduce)
                                                                     : nullptr,
      .reduce_scatter = nullptr,
      .allgather = nullptr,
      .zero_stage = 0,
      .stage_layers = {},
      .memory = {},
      .data = std::move(data_set),
      .schedule = schedule,
      .total_iterations = total_iterations(s.training, iterations_per_epoch),
      .evaluate_every = s.training.evaluate_every > 0 ? s.training.evaluate_every : iterations_per_epoch,
      .backend_notice = std::move(backend_notice),
  };
}

std::unique_ptr<comm::CollectiveAlgorithm> as_library_runs_it(const std::string& library, const scenario::Scenario& s,
                                                              std::unique_ptr<comm::CollectiveAlgorithm> algorithm,
                                                              comm::LibraryCollective::ChoiceSink on_choice) {
  if (library != "nccl") return algorithm;
  // NVLS when every node's switch reduces; its links are the slowest node type's.
  std::optional<comm::SwitchReduction> nvls;
  const bool every_node = !s.cluster.nodes.empty() &&
                          std::all_of(s.cluster.nodes.begin(), s.cluster.nodes.end(),
                                      [](const scenario::NodeGroup& group) { return group.nvls; });
  if (every_node) {
    for (const scenario::NodeGroup& group : s.cluster.nodes) {
      const comm::SwitchReduction links{group.intra_link.bandwidth.value(), group.intra_link.latency.value()};
      if (!nvls || links.bandwidth < nvls->bandwidth) nvls = links;
    }
  }
  return std::make_unique<comm::LibraryCollective>(std::move(algorithm), std::move(on_choice), nvls);
}

}  // namespace dtsim::app
