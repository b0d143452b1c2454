#include "sim/checks/scenario_resolver.hpp"

#include "sim/core/name_match.hpp"
#include "sim/runtime/jobs/cluster_placement.hpp"
#include "sim/runtime/network/network_backend.hpp"
#include "sim/runtime/setup/platform_spec.hpp"
#include "sim/scenario/expert_grid.hpp"
#include "sim/scenario/scenario_builder.hpp"
#include "sim/topology/reachability.hpp"

#include "models/model_profile.hpp"
#include "models/pipeline_plan.hpp"
#include "models/split_mlp.hpp"
#include "sim/checks/compute_backend.hpp"
#include "sim/checks/failure_checks.hpp"
#include "sim/checks/memory_checks.hpp"
#include "sim/checks/parallelism_checks.hpp"
#include "sim/checks/scenario_data.hpp"
#include "sim/comm/library_collective.hpp"
#include "sim/scenario/parallel_axes.hpp"
#include "sim/scenario/parallel_layout.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>

namespace dtsim::checks {

std::unique_ptr<sync::SyncStrategy> make_strategy(const scenario::Scenario& s, const Registries& registries) {
  return registries.strategies.find(s.training.sync_strategy.value).factory.make(s.training.sync_parameters);
}

namespace {

/// Iterations until the first stop condition that this version simulates (epochs, iterations).
std::int64_t total_iterations(const scenario::TrainingSpec& training, std::int64_t iterations_per_epoch) {
  std::int64_t total = std::numeric_limits<std::int64_t>::max();
  if (training.epochs) total = std::min(total, *training.epochs * iterations_per_epoch);
  if (training.iterations) total = std::min(total, *training.iterations);
  return total;
}

/// Iterations a budget's run simulates before its whole length is projected: enough for the steady state of a
/// run whose iterations are alike (a timing-only run without stragglers or failures takes the same time for
/// each).
constexpr std::int64_t kBudgetSimulatedIterations = 3;

/// The most iterations a budget's run may project: 2^53, the largest count a double (and so every reader of
/// summary.json) holds exactly. The schema's bounds allow budgets far beyond it (1e9 epochs of 1e18 samples),
/// which no integer counts.
constexpr double kBudgetIterationLimit = 9007199254740992.0;

/// A budget's whole run in iterations (0 without one): its samples, or its tokens over the sequence, over the
/// global batch, rounded up; sized epochs take each epoch's iterations so rounded (the last batch of an epoch
/// is a whole one, as a loader that keeps it pads it). A double: check_profile_run bounds it before it is
/// counted as an integer.
double budget_iteration_count(const scenario::Scenario& s, const models::ModelProfile& profile) {
  const scenario::TrainingSpec& t = s.training;
  if (!t.has_budget()) return 0.0;
  const double samples = static_cast<double>(t.batch_per_worker) * t.parallelism.data;
  const bool in_tokens = t.tokens || t.tokens_per_epoch;
  const double per_iteration = in_tokens ? samples * profile.shape.sequence : samples;
  const auto iterations = [&](double amount) { return std::max(1.0, std::ceil(amount / per_iteration)); };
  if (t.tokens || t.samples) return iterations(t.tokens ? *t.tokens : *t.samples);
  return static_cast<double>(*t.epochs) * iterations(t.tokens_per_epoch ? *t.tokens_per_epoch : *t.samples_per_epoch);
}

/// budget_iteration_count as a count, which kBudgetIterationLimit keeps exact.
std::int64_t budget_iterations(const scenario::Scenario& s, const models::ModelProfile& profile) {
  return static_cast<std::int64_t>(budget_iteration_count(s, profile));
}

/// The iterations a timing-only run simulates: training.stop.iterations, or a budget's first few.
std::int64_t simulated_iterations(const scenario::Scenario& s, const models::ModelProfile& profile) {
  if (s.training.iterations) return *s.training.iterations;
  return std::min(kBudgetSimulatedIterations, budget_iterations(s, profile));
}

/// The scenario's synchronization strategy, configured from `training.sync`.
/// The scenario's optimizer, configured from `training.optimizer`, for each holder of parameters to make its own.
std::function<std::unique_ptr<models::Optimizer>(std::size_t)> optimizer_factory(const scenario::Scenario& s,
                                                                                 const Registries& registries) {
  // The setup may outlive the registries (tests keep it): it holds its own copy of the factory.
  return [make = registries.optimizers.find(s.training.optimizer.kind.value).factory.make,
          rate = s.training.optimizer.learning_rate, values = s.training.optimizer.parameters](std::size_t size) {
    return make(rate, values, size);
  };
}

/// A timing-only model's layer table, built once for the checks and the run; without it, why not (reported
/// by check_profile_run, where the profile's own problems are told among the run's).
struct BuiltProfile {
  std::optional<models::ModelProfile> profile;
  std::optional<core::Diagnostic> problem;
};

BuiltProfile build_profile(const scenario::Scenario& s, const Registries& registries) {
  if (!s.model.timing_only) return {};
  const core::View section(&s.model.section, "model");
  core::Diagnostic problem;
  try {
    return {registries.models.find(s.model.kind.value).factory.profile(section), std::nullopt};
  } catch (const models::ProfileError& error) {
    problem.where = section.where(error.key());
    problem.key = "model." + error.key();
    problem.message = error.what();
    problem.hint = error.hint();
  } catch (const std::invalid_argument& error) {
    problem.where = s.model.kind.where;
    problem.key = "model.kind";
    problem.message = error.what();
  }
  return {std::nullopt, std::move(problem)};
}

/// A budget's failures are projected as a renewal process of the job's random failures: fixed events,
/// elastic recovery and a budget without random failures are not.
void check_projected_failures(const scenario::Scenario& s, core::DiagnosticSink& sink) {
  const scenario::FailureSpec& spec = s.failures;
  const std::string budget = s.training.budget_key();
  const auto refuse = [&](const std::string& what) {
    sink.error(spec.where, "failures",
               fmt::format("a budget's run projects the random failures of its workers (failures.random) with its "
                           "checkpoints and restarts; {} are not projected",
                           what),
               fmt::format("remove them, or simulate the iterations (training.stop.iterations instead of {}) with them",
                           budget));
  };
  if (!spec.events.empty()) refuse("failures at given times (failures.events)");
  if (!spec.link_events.empty()) refuse("link failures");
  if (!spec.server_events.empty()) refuse("server failures");
  if (spec.elastic) refuse("elastic recoveries");
  if (!spec.mtbf_s && !spec.by_component()) {
    sink.error(spec.where, "failures",
               "a budget's run projects random failures, and neither failures.random nor failures by component "
               "(catalog, components) is given",
               "add failures.random: {mtbf: ...} or failures.catalog: llama3_2024, or remove failures");
  }
}

/// What a timing-only run needs: an allreduce with bsp or local SGD (the loops that run without values),
/// a number of iterations, no loss target, a sequence the model has positions for.
void check_profile_run(const scenario::Scenario& s, const sync::SyncStrategy& strategy, const BuiltProfile& built,
                       core::DiagnosticSink& sink) {
  if (s.training.architecture != scenario::Architecture::Allreduce) {
    sink.error(s.training.architecture_at, "training.architecture.kind",
               fmt::format("timing-only profiles run on an allreduce for now, and the architecture is '{}'",
                           scenario::to_string(s.training.architecture)),
               "use training.architecture.kind: allreduce");
  }
  if (!strategy.averages_in_lock_step()) {
    sink.error(s.training.sync_strategy.where, "training.sync.strategy",
               fmt::format("timing-only profiles run bsp, local_sgd and diloco for now, and the strategy is '{}'",
                           s.training.sync_strategy.value),
               "use training.sync.strategy: bsp, local_sgd or diloco");
  }
  if (!s.training.iterations && !s.training.has_budget()) {
    sink.error(s.training.batch_at, "training.stop.iterations",
               "a timing-only profile stops after a number of iterations, and none is given",
               "add training.stop.iterations, or a budget to project (training.stop.tokens or samples, or epochs with "
               "samples_per_epoch)");
  }
  if (s.failures_projected()) check_projected_failures(s, sink);
  if ((s.training.tokens || s.training.tokens_per_epoch) && built.profile && built.profile->shape.sequence == 0) {
    const bool epochs = !s.training.tokens;
    sink.error(epochs ? s.training.epoch_size_at : s.training.budget_at,
               epochs ? "training.stop.tokens_per_epoch" : "training.stop.tokens",
               fmt::format("'{}' takes samples that are not sequences of tokens", s.model.kind.value),
               epochs ? "give the epoch's size as training.stop.samples_per_epoch" : "give the budget as training.stop.samples");
  } else if (s.training.has_budget() && built.profile) {
    const double iterations = budget_iteration_count(s, *built.profile);
    const std::int64_t batch = static_cast<std::int64_t>(s.training.batch_per_worker) * s.training.parallelism.data;
    if (iterations > kBudgetIterationLimit) {
      sink.error(s.training.budget_at, s.training.budget_key(),
                 fmt::format("the budget comes to {:.4g} iterations of a global batch of {} samples, and a run "
                             "projects at most 2^53 iterations ({:.4g})",
                             iterations, batch, kBudgetIterationLimit),
                 "lower the budget, or train it in larger batches (training.batch)");
    }
  }
  if (s.target_loss) {
    sink.error(s.target_loss_at, "outputs.target_loss", "a timing-only profile computes no loss to reach",
               "remove outputs.target_loss");
  }
  if (s.target_accuracy) {
    sink.error(s.target_accuracy_at, "outputs.target_accuracy", "a timing-only profile computes no accuracy to reach",
               "remove outputs.target_accuracy");
  }
  if (built.problem) sink.error(built.problem->where, built.problem->key, built.problem->message, built.problem->hint);
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

/// Why gradient buckets cannot be allreduced during the backward pass of this run; empty when they can.
std::string why_no_overlap(const scenario::Scenario& s, const sync::SyncStrategy& strategy) {
  if (!s.model.timing_only) {
    return fmt::format("'{}' trains for real, and overlap needs a layer table to say when each gradient is ready",
                       s.model.kind.value);
  }
  if (s.training.architecture != scenario::Architecture::Allreduce) return "overlap buckets an allreduce's gradients";
  if (!strategy.bulk_synchronous()) {
    return fmt::format("overlap allreduces every step's gradients (bsp), and the strategy is '{}'",
                       s.training.sync_strategy.value);
  }
  if (s.failures.enabled && !s.failures_projected()) return "overlap with failures is not simulated yet";
  if (s.training.parallelism.expert > 1) {
    return "under expert parallelism the experts' gradients and the dense ones are reduced over different "
           "groups after the step; their overlap with the backward pass is not simulated yet";
  }
  if (scenario::experts_apart(s.training.parallelism)) {
    return "under expert tensor parallelism the experts' gradients and the dense ones are reduced over different "
           "groups after the step; their overlap with the backward pass is not simulated yet";
  }
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
void check_recomputation(const scenario::Scenario& s, const models::ModelProfile* profile, core::DiagnosticSink& sink) {
  if (s.training.recomputation == models::Recomputation::None) return;
  const std::string key = "training.recomputation";
  if (!s.model.timing_only) {
    sink.error(s.training.recomputation_at, key,
               fmt::format("recomputation runs on timing-only models in this version, and '{}' trains for real",
                           s.model.kind.value),
               "use a model.kind: profile:..., or training.recomputation: none");
    return;
  }
  // Without a profile, its own problem is reported (check_profile_run).
  if (profile != nullptr && profile->shape.heads == 0) {
    sink.error(s.training.recomputation_at, key,
               fmt::format("recomputation drops transformer blocks' activations, and '{}' has no blocks",
                           s.model.kind.value),
               "use a transformer profile, or training.recomputation: none");
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

/// A jittered link has a latency: its jitter is added to messages as a share of their route's latency.
void check_jittered_latencies(const scenario::LinkCondition& rule, const std::string& key,
                              const topology::TopologyGraph& graph, core::DiagnosticSink& sink) {
  for (std::size_t id = 0; id < graph.link_count(); ++id) {
    const topology::LinkProperties& link = graph.link(id);
    if (rule.chooses(link.name, link.link_class) && link.latency.value() <= 0.0) {
      sink.error(rule.where, key + ".jitter", fmt::format("link '{}' has no latency for jitter to add to", link.name),
                 "give the link a latency (a propagation delay), or leave it out of this condition");
      return;
    }
  }
}

/// Each link condition names some links (by name or by a class the topology has), and a loss or a jitter.
void check_link_conditions(const scenario::Scenario& s, const topology::TopologyGraph& graph,
                           core::DiagnosticSink& sink) {
  std::vector<std::string> classes;
  for (std::size_t id = 0; id < graph.link_count(); ++id) {
    const std::string& name = graph.link(id).link_class;
    if (std::find(classes.begin(), classes.end(), name) == classes.end()) classes.push_back(name);
  }
  for (std::size_t i = 0; i < s.link_conditions.size(); ++i) {
    const scenario::LinkCondition& rule = s.link_conditions[i];
    const std::string key = fmt::format("link_conditions[{}]", i);
    if (rule.links.empty() && rule.link_class.value.empty()) {
      sink.error(rule.where, key, "a link condition names no link", "give links: [NAME, ...], or class: wan");
    }
    if (rule.loss <= 0.0 && rule.jitter_s <= 0.0) {
      sink.error(rule.where, key, "a link condition sets neither a loss nor a jitter",
                 "add `loss: 0.0001` (a share of packets lost), `jitter: 5ms` (a mean extra delay), or both");
    }
    if (rule.jitter_s > 0.0) check_jittered_latencies(rule, key, graph, sink);
    const std::string& wanted = rule.link_class.value;
    if (!wanted.empty() && std::find(classes.begin(), classes.end(), wanted) == classes.end()) {
      sink.error(rule.link_class.where, key + ".class",
                 fmt::format("the '{}' topology has no link of class '{}'", s.topology.kind.value, wanted),
                 fmt::format("its classes: {}", core::join_names(classes)));
    }
  }
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
  for (std::size_t i = 0; i < s.link_conditions.size(); ++i) {
    for (std::size_t l = 0; l < s.link_conditions[i].links.size(); ++l) {
      check(s.link_conditions[i].links[l], fmt::format("link_conditions[{}].links[{}]", i, l));
    }
  }
  for (std::size_t i = 0; i < s.background_traffic.size(); ++i) {
    for (std::size_t l = 0; l < s.background_traffic[i].links.size(); ++l) {
      check(s.background_traffic[i].links[l], fmt::format("background_traffic[{}].links[{}]", i, l));
    }
  }
  std::vector<std::string> switches;
  for (topology::NodeId node = 0; node < graph.node_count(); ++node) {
    if (graph.node(node).kind == topology::NodeKind::Switch) switches.push_back(graph.node(node).name);
  }
  for (const scenario::LinkFailure& failure : s.failures.link_events) {
    if (!failure.whole_switch) {
      check(failure.link, "failures.events.target");
      continue;
    }
    if (topology::find_switch(graph, failure.link.value)) continue;
    std::string hint = switches.empty()
                           ? fmt::format("the '{}' topology has no switches: fail its links (kind: link)", s.topology.kind.value)
                           : fmt::format("the '{}' topology's switches are named like '{}'", s.topology.kind.value, switches.front());
    if (const auto closest = core::closest_name(failure.link.value, switches)) hint = fmt::format("did you mean '{}'?", *closest);
    sink.error(failure.link.where, "failures.events.target", fmt::format("the topology has no switch named '{}'", failure.link.value),
               hint);
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
  std::optional<models::ModelProfile> profile;     ///< timing-only runs: the layer table, built once
};

/// `training.overlap_expert_exchange`: a timing-only mixture's expert group, where Megatron-Core overlaps its
/// exchanges (without a pipeline, or over one under the interleaved schedule) or DualPipe does (its forward and
/// backward passes run as one); not under full recomputation.
void check_expert_exchange_overlap(const scenario::Scenario& s, core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const std::string key = "training.overlap_expert_exchange";
  if (!s.model.timing_only || plan.expert < 2) {
    sink.error(s.training.overlap_expert_exchange_at, key,
               !s.model.timing_only
                   ? fmt::format("'{}' trains for real; only a timing-only mixture's exchanges are overlapped", s.model.kind.value)
                   : std::string("there is no expert group (expert: 1), so no token exchange to overlap"),
               "use a timing-only mixture (profile:mixtral_8x7b, profile:deepseek_v3) with expert above 1, or leave "
               "overlap_expert_exchange out");
    return;
  }
  if (plan.schedule == models::PipelineSchedule::GPipe || plan.schedule == models::PipelineSchedule::ZeroBubble ||
      (plan.pipeline > 1 && plan.schedule != models::PipelineSchedule::Interleaved &&
       plan.schedule != models::PipelineSchedule::DualPipe)) {
    sink.error(s.training.overlap_expert_exchange_at, key,
               plan.pipeline > 1
                   ? fmt::format("over a pipeline the exchanges are overlapped under the interleaved schedule (Megatron-Core "
                                 "requires virtual stages) or DualPipe, and the schedule is '{}'",
                                 scenario::to_string(plan.schedule))
                   : fmt::format("the '{}' schedule runs no backward pass beside the next micro-batch's forward pass",
                                 scenario::to_string(plan.schedule)),
               plan.pipeline > 1 ? "use schedule: interleaved_1f1b with virtual_stages, or dualpipe, or leave "
                                   "overlap_expert_exchange out"
                                 : "leave schedule out (1f1b), or leave overlap_expert_exchange out");
  }
  if (scenario::device_share_of(s.training).recomputation == models::Recomputation::Full) {
    sink.error(s.training.overlap_expert_exchange_at, key,
               "full recomputation runs each block's exchanges again inside the backward pass; Megatron-Core refuses the two "
               "together",
               "use recomputation: selective or none, or leave overlap_expert_exchange out");
  }
}

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
  if (s.training.overlap_expert_exchange) check_expert_exchange_overlap(s, sink);
  if (s.training.token_dispatcher != scenario::TokenDispatcher::AllToAll &&
      (!s.model.timing_only || s.training.parallelism.expert < 2)) {
    sink.error(s.training.token_dispatcher_at, "training.token_dispatcher",
               !s.model.timing_only
                   ? fmt::format("'{}' trains for real; only a timing-only mixture's tokens are dispatched by {}",
                                 s.model.kind.value, scenario::to_string(s.training.token_dispatcher))
                   : std::string("there is no expert group (expert: 1), so no token to dispatch"),
               "use a timing-only mixture (profile:deepseek_v3, profile:mixtral_8x7b) with expert above 1, or leave "
               "token_dispatcher out");
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

/// The expert groups' all-to-alls that go machine by machine (the hierarchical algorithm, the deepep dispatcher)
/// need as many of a group's ranks on each machine it spans.
void check_expert_machines(const scenario::Scenario& s, const topology::TopologyGraph& graph, core::DiagnosticSink& sink) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const bool deepep = s.training.token_dispatcher == scenario::TokenDispatcher::DeepEp;
  if (plan.expert < 2 || (!deepep && plan.all_to_all.value != "hierarchical")) return;
  const std::span<const int> machines = graph.worker_machines();
  for (int rank = 0; rank < s.cluster.workers && std::cmp_less(rank, machines.size()); ++rank) {
    if (scenario::expert_place(plan, scenario::coordinates_of(plan, rank)).expert != 0) continue;
    std::map<int, int> on_machine;
    for (const int member : scenario::group_along(plan, rank, scenario::ParallelAxis::Expert)) {
      if (std::cmp_less(member, machines.size())) ++on_machine[machines[static_cast<std::size_t>(member)]];
    }
    if (on_machine.empty()) continue;
    const auto [fewest, most] = std::minmax_element(on_machine.begin(), on_machine.end(),
                                                    [](const auto& a, const auto& b) { return a.second < b.second; });
    if (fewest->second == most->second) continue;
    const std::string what = deepep ? "the deepep dispatcher" : "the hierarchical all-to-all";
    sink.error(deepep ? s.training.token_dispatcher_at : plan.all_to_all.where,
               deepep ? "training.token_dispatcher" : "training.parallelism.all_to_all",
               fmt::format("{} goes machine by machine and needs as many of an expert group's ranks on each machine; "
                           "the group of rank {} has {} on one machine and {} on another",
                           what, rank, most->second, fewest->second),
               deepep ? "place the ranks so that each expert group fills its machines evenly (training.parallelism."
                        "placement, or whole nodes of workers), or use token_dispatcher: all_to_all"
                      : "place the ranks so that each expert group fills its machines evenly, or use all_to_all: direct");
    return;
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
  const bool bulk_synchronous = strategy.bulk_synchronous();
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
  if (const sync::StreamingSettings* streaming = strategy.streaming();
      streaming != nullptr && streaming->overlap > 0 && s.training.stops_at_target()) {
    // The exchanges still on their way when the target is reached would be left moving.
    sink.error(
        s.training.stop_target_at, s.training.stop_loss ? "training.stop.target_loss" : "training.stop.target_accuracy",
        "stopping at a target while Streaming DiLoCo's exchanges run beside the inner steps is not simulated yet",
        "use overlap_steps: 0, or stop after a number of iterations and read outputs.target_loss");
  }
  if (strategy.steps_with_its_site() && s.topology.kind.value != "sites") {
    sink.error(
        s.training.sync_strategy.where, "training.sync.inner_sync",
        fmt::format("inner_sync: site averages each datacenter's gradients every step, and the '{}' topology has "
                    "no sites",
                    s.topology.kind.value),
        "use topology.kind: sites, or inner_sync: worker");
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

/// An accuracy is a classifier's: the share of samples given their label.
void check_target_accuracy(const scenario::Scenario& s, const Registries& registries, core::DiagnosticSink& sink) {
  if (s.model.timing_only) return;
  if (registries.models.find(s.model.kind.value).factory.trains_on == models::SampleKind::Classified) return;
  const std::string message = fmt::format("'{}' classifies nothing, so it has no accuracy to reach", s.model.kind.value);
  if (s.target_accuracy) sink.error(s.target_accuracy_at, "outputs.target_accuracy", message, "use outputs.target_loss");
  if (s.training.stop_accuracy) {
    sink.error(s.training.stop_target_at, "training.stop.target_accuracy", message, "use training.stop.target_loss");
  }
}

/// A run stops at a target it computes (not a timing-only one's), and not beside failures, whose recoveries end
/// the run on their own terms.
void check_stop_target(const scenario::Scenario& s, core::DiagnosticSink& sink) {
  const scenario::TrainingSpec& t = s.training;
  if (!t.stops_at_target()) return;
  const std::string key = t.stop_loss ? "training.stop.target_loss" : "training.stop.target_accuracy";
  if (s.model.timing_only) {
    sink.error(t.stop_target_at, key, "a timing-only profile computes no loss or accuracy to reach",
               "stop it after a number of iterations, or at a budget (training.stop.tokens)");
    return;
  }
  if (s.failures.enabled) {
    sink.error(t.stop_target_at, key, "stopping at a target beside failures is not simulated yet",
               "remove failures, or report when the target was reached: outputs.target_loss");
  }
}


/// The run's graph; a job of several on one cluster stands on the cluster's first devices until it is placed (the
/// checks read only how its devices are joined, which placement keeps within a machine).
topology::TopologyGraph graph_of(const scenario::Scenario& s, const Registries& registries) {
  topology::TopologyGraph graph = scenario::build_topology(s, registries.topologies);
  if (s.cluster.topology_workers == 0) return graph;
  const auto workers = graph.workers();
  return graph.with_workers(workers.subspan(0, static_cast<std::size_t>(s.cluster.workers)));
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
  Prepared prepared{.graph = graph_of(s, registries),
                    .strategy = make_strategy(s, registries),
                    .data = {},
                    .model = nullptr,
                    .memory = {},
                    .profile = std::nullopt};
  const topology::TopologyGraph& graph = prepared.graph;
  const sync::SyncStrategy* strategy = prepared.strategy.get();
  check_backend(s, registries.models, sink);
  check_link_names(s, graph, sink);
  check_link_conditions(s, graph, sink);
  runtime::network_backend(s.topology.network_model).check(s, registries.collectives.allreduce, sink);
  check_failures(s, *strategy, sink);
  BuiltProfile built = build_profile(s, registries);
  const models::ModelProfile* profile = built.profile ? &*built.profile : nullptr;
  check_split(s, *strategy, profile, registries, sink);
  check_expert_machines(s, graph, sink);
  check_target_accuracy(s, registries, sink);
  check_stop_target(s, sink);
  if (s.model.timing_only) {
    check_profile_run(s, *strategy, built, sink);
    if (sink.empty()) {
      prepared.memory = device_memory(s, *profile, registries);
      check_memory(s, prepared.memory, sink);
    }
    prepared.profile = std::move(built.profile);
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

/// The collectives the run's workers exchange by: the allreduce where the architecture has one; under ZeRO,
/// sequence parallelism, expert tensor parallelism or the all_gather token dispatcher the reduce-scatter and
/// allgather, with the architecture's algorithm; under expert parallelism the all-to-all of
/// `training.parallelism.all_to_all`.
runtime::RunCollectives run_collectives(const scenario::Scenario& s, const Registries& registries) {
  runtime::RunCollectives out;
  if (!scenario::has_allreduce(s.training.architecture)) return out;
  out.add(comm::Operation::allreduce, collective(s, registries, comm::Operation::allreduce));
  const bool gathers_keys = s.training.parallelism.context > 1 &&
                            s.training.parallelism.context_attention == scenario::ContextAttention::AllGather;
  // An expert-tensor group gathers its routed tokens and reduce-scatters their sums; so does an expert group under
  // the all_gather dispatcher.
  const bool gathers_tokens = s.training.parallelism.expert_tensor > 1 ||
                              (s.training.parallelism.expert > 1 &&
                               s.training.token_dispatcher == scenario::TokenDispatcher::AllGather);
  if (s.training.parallelism.zero > 0 || s.training.parallelism.sequence_parallel || gathers_keys || gathers_tokens) {
    out.add(comm::Operation::reduce_scatter, collective(s, registries, comm::Operation::reduce_scatter));
    out.add(comm::Operation::allgather, collective(s, registries, comm::Operation::allgather));
  }
  if (s.training.parallelism.expert > 1) {
    out.add(comm::Operation::all_to_all,
            as_library_runs_it(s.training.communication_library, s,
                               registries.collectives.all_to_all.find(s.training.parallelism.all_to_all.value).factory.make()));
  }
  return out;
}

/// The swept keys, as the document's sweep names them.
std::vector<std::string> swept_keys(const scenario::ScenarioDocument& document) {
  std::vector<std::string> swept;
  if (const core::ConfigNode* sweep = document.resolved.find("sweep"); sweep != nullptr && sweep->is_map()) {
    if (const core::ConfigNode* axes = sweep->find("axes"); axes != nullptr) {
      for (const auto& axis : axes->entries) swept.push_back(axis.key);
    }
  }
  return swept;
}

/// A swept value as a sweep writes it, never as nothing: a list as [a, b] (a placement), a mapping as {k: v}, an
/// empty text as "".
std::string written(const core::ConfigNode& value) {
  if (value.is_scalar()) return value.scalar.empty() ? "\"\"" : value.scalar;
  std::vector<std::string> parts;
  for (const core::ConfigNode& item : value.items) parts.push_back(written(item));
  for (const core::ConfigEntry& entry : value.entries) parts.push_back(entry.key + ": " + written(entry.value));
  if (value.is_list()) return fmt::format("[{}]", fmt::join(parts, ", "));
  return value.is_map() ? fmt::format("{{{}}}", fmt::join(parts, ", ")) : "null";
}

/// Where the sweep sets each swept value of `point`: "cluster.workers = 8 at x.yaml:12:14, ...".
std::string swept_origin(const scenario::Scenario& point, const std::vector<std::string>& swept) {
  std::string origin;
  for (const std::string& path : swept) {
    const core::ConfigNode* value = find_dotted(point.resolved, path);
    if (value == nullptr) continue;
    origin += fmt::format("{}{} = {} at {}", origin.empty() ? "" : ", ", path, written(*value),
                          core::format_position(value->where));
  }
  return origin;
}

}  // namespace

void check_split(const scenario::Scenario& s, const sync::SyncStrategy& strategy, const models::ModelProfile* profile,
                 const Registries& registries, core::DiagnosticSink& sink) {
  check_zero(s, strategy, registries, sink);
  check_model_parallel(s, strategy, profile, registries, sink);
  check_overlaps(s, strategy, sink);
  check_recomputation(s, profile, sink);
}

bool overlaps_gradients(const scenario::Scenario& s, const sync::SyncStrategy& strategy) {
  return s.training.overlap.value_or(why_no_overlap(s, strategy).empty());
}

void check_scenario(const scenario::Scenario& scenario, const Registries& registries) {
  const Prepared prepared = prepare_and_check(scenario, registries);
  // Several jobs: each job's own checks, and its explicit hosts on the cluster's graph. Every job is checked
  // whatever another's faults, so that one report names them all.
  core::DiagnosticSink sink;
  for (const scenario::JobSpec& job : scenario.jobs) {
    try {
      static_cast<void>(prepare_and_check(*job.scenario, registries));
    } catch (const core::InputError& error) {
      for (const core::Diagnostic& d : error.diagnostics()) sink.error(d.where, d.key, d.message, d.hint);
    }
    static_cast<void>(runtime::explicit_ranks(job, prepared.graph, sink));
  }
  sink.throw_if_any();
}

void check_every_point(const scenario::ScenarioDocument& document, const Registries& registries) {
  const std::vector<std::string> swept = swept_keys(document);
  std::vector<core::Diagnostic> diagnostics;
  for (const auto& point : document.points) {
    try {
      check_scenario(point, registries);
    } catch (const core::InputError& error) {
      const std::string origin = swept_origin(point, swept);
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
    const models::ModelProfile& profile = *prepared.profile;
    const bool overlap = overlaps_gradients(s, *prepared.strategy);
    return runtime::TrainingSetup{
        .mode = runtime::run_mode(s),
        .graph = std::move(prepared.graph),
        .workload = profile,
        .sync = std::move(prepared.strategy),
        .make_optimizer = optimizer_factory(s, registries),
        .collectives = run_collectives(s, registries),
        .zero_stage = s.training.parallelism.zero,
        .stage_layers = s.training.parallelism.is_model_parallel()
                            ? models::split_into_stages(profile,
                                                        models::model_stages(s.training.parallelism.schedule,
                                                                             s.training.parallelism.pipeline,
                                                                             s.training.parallelism.virtual_stages),
                                                        s.training.parallelism.stage_split)
                            : std::vector<std::size_t>{},
        .memory = std::move(prepared.memory),
        .data = {},
        .schedule = models::BatchSchedule(workers * batch, s.cluster.workers, s.training.batch_per_worker, s.seed),
        .total_iterations = simulated_iterations(s, profile),
        .evaluate_every = simulated_iterations(s, profile),
        .projected_iterations = budget_iterations(s, profile),
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
      .mode = runtime::run_mode(s),
      .graph = std::move(prepared.graph),
      .workload = std::move(model),
      .sync = std::move(prepared.strategy),
      .make_optimizer = optimizer_factory(s, registries),
      .collectives = run_collectives(s, registries),
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

std::unique_ptr<comm::CollectiveAlgorithm> as_library_runs_it(scenario::CommunicationLibrary library, const scenario::Scenario& s,
                                                              std::unique_ptr<comm::CollectiveAlgorithm> algorithm,
                                                              comm::LibraryCollective::ChoiceSink on_choice) {
  if (library != scenario::CommunicationLibrary::Nccl) return algorithm;
  // NVLS when every node's switch reduces; its links are the slowest node type's.
  std::optional<comm::SwitchReduction> nvls;
  const bool every_node = !s.cluster.nodes.empty() &&
                          std::all_of(s.cluster.nodes.begin(), s.cluster.nodes.end(),
                                      [](const scenario::NodeGroup& group) { return group.nvls; });
  if (every_node) {
    for (const scenario::NodeGroup& group : s.cluster.nodes) {
      // Blackwell's switches reach a smaller share of their links (NCCL's nvlsEfficiency by compute capability).
      const double efficiency =
          group.device.fp4_generation() ? comm::kBlackwellNvlsEfficiency : comm::kHopperNvlsEfficiency;
      const comm::SwitchReduction links{group.intra_link.bandwidth.value(), group.intra_link.latency.value(), efficiency};
      if (!nvls || links.bandwidth * links.efficiency < nvls->bandwidth * nvls->efficiency) nvls = links;
    }
  }
  return std::make_unique<comm::LibraryCollective>(std::move(algorithm), std::move(on_choice), nvls);
}

}  // namespace dtsim::checks
