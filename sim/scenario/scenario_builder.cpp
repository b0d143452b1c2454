#include "sim/scenario/scenario_builder.hpp"

#include "sim/core/name_match.hpp"
#include "sim/core/slowdown_distribution.hpp"
#include "sim/scenario/device_catalog.hpp"
#include "sim/scenario/node_catalog.hpp"
#include "sim/scenario/config_view.hpp"
#include "sim/scenario/named_values.hpp"
#include "sim/scenario/parallel_axes.hpp"
#include "sim/scenario/plugin_schema.hpp"
#include "sim/scenario/device_reader.hpp"
#include "sim/scenario/energy_reader.hpp"
#include "sim/scenario/failure_reader.hpp"
#include "sim/scenario/trace_reader.hpp"
#include "models/stage_layout.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>


namespace dtsim::scenario {
namespace {

/// Multi-device nodes need a topology that places workers on them; an allreduce algorithm may need a
/// placement of the workers (the hierarchical one: nodes that they fill evenly).
void check_hierarchy(const View& root, const Scenario& s, const Registries& registries, core::DiagnosticSink& sink) {
  const topologies::TopologyPlugin& topology = registries.topologies.find(s.topology.kind.value).factory;
  const View cluster = root.at("cluster");
  const bool has_nodes = cluster.has("nodes");
  if (!topology.places_nodes && has_nodes) {
    std::vector<std::string> placing;
    for (const std::string& name : registries.topologies.registration_order()) {
      if (registries.topologies.find(name).factory.places_nodes) placing.push_back(name);
    }
    sink.error(cluster.key_where("nodes"), "cluster.nodes",
               fmt::format("multi-device nodes are simulated by topology.kind: {} only, and the kind is '{}'",
                           core::join_names(placing), s.topology.kind.value),
               fmt::format("use kind: {} with fabric: {}, or remove cluster.nodes", placing.front(), s.topology.kind.value));
  }
  const View architecture = root.at("training").at("architecture");
  if (!architecture.has("algorithm")) return;
  const comm::CollectivePlugin& algorithm = registries.collectives.allreduce.find(architecture.text("algorithm")).factory;
  if (!algorithm.refuses) return;
  // Workers fill the nodes in order, one per device (a sites topology's nodes are its sites' `per_node`
  // devices); without nodes, each is a machine of its own.
  std::vector<int> filled;
  int left = s.cluster.workers;
  const ConfigNode* sites = root.at("topology").at("sites").node();
  if (has_nodes) {
    for (const NodeGroup& group : s.cluster.nodes) {
      for (int n = 0; n < group.count && left > 0; ++n) {
        filled.push_back(std::min(left, group.devices));
        left -= filled.back();
      }
    }
  } else if (sites != nullptr) {
    for (std::size_t i = 0; i < sites->items.size(); ++i) {
      const View site(&sites->items[i], fmt::format("topology.sites[{}]", i));
      const int workers = static_cast<int>(site.integer("workers").value_or(0));
      const int per_node = std::max(1, static_cast<int>(site.integer("per_node").value_or(1)));
      for (int placed = 0; placed < workers; placed += per_node) filled.push_back(std::min(per_node, workers - placed));
    }
  } else {
    filled.assign(static_cast<std::size_t>(std::max(left, 0)), 1);
  }
  // The networks that time phases at once time every-to-every steps past its limit from the links' loads.
  const bool at_once = traits_of(s.topology.network_model).times_phases_at_once;
  if (const auto refusal = algorithm.refuses(comm::Placement{filled, at_once})) {
    sink.error(architecture.where("algorithm"), "training.architecture.algorithm", refusal->message, refusal->hint);
  }
}

int total_devices(const View& cluster, core::DiagnosticSink& sink) {
  const ConfigNode* nodes = cluster.at("nodes").node();
  if (nodes == nullptr) return -1;
  const View types = cluster.at("node_types");
  std::int64_t devices = 0;
  bool complete = true;
  for (std::size_t i = 0; i < nodes->items.size(); ++i) {
    const View group(&nodes->items[i], fmt::format("cluster.nodes[{}]", i));
    const std::string type = group.text("type");
    const View declared = types.at(type);
    if (declared.node() == nullptr) {
      if (const std::optional<CatalogNode> builtin = find_builtin_node(type)) {
        devices += group.filled_integer("count") * builtin->devices;
        continue;
      }
      std::vector<std::string> known = builtin_node_names();
      if (types.node() != nullptr) {
        for (const auto& entry : types.node()->entries) known.push_back(entry.key);
      }
      std::string hint = fmt::format("known node types: {}; or declare it under cluster.node_types",
                                     core::join_names(known));
      if (const auto closest = core::closest_name(type, known)) hint = fmt::format("did you mean '{}'?", *closest);
      sink.error(group.where("type"), group.path() + ".type", fmt::format("unknown node type '{}'", type), hint);
      complete = false;
      continue;
    }
    devices += group.filled_integer("count") * *declared.integer("devices");
  }
  if (!complete) return -1;
  return static_cast<int>(std::min<std::int64_t>(devices, 1'000'000'000));
}

/// Per worker: the product of the fixed slowdowns of the straggler rules that name it (or name no one).
std::vector<RandomSlowdown> read_random_slowdowns(const View& root) {
  std::vector<RandomSlowdown> out;
  const ConfigNode* rules = root.at("stragglers").node();
  for (std::size_t i = 0; rules != nullptr && i < rules->items.size(); ++i) {
    const View rule(&rules->items[i], "");
    if (!rule.has("distribution")) continue;
    const std::string distribution = rule.text("distribution");
    RandomSlowdown random{
        .workers = {},
        .distribution = distribution,
        .parameters = declared_values(core::builtin_slowdowns().find(distribution).factory.parameters, rule),
        .cluster_wide = rule.filled_text("scope") == "cluster"};
    if (const ConfigNode* ranks = rule.at("workers").node()) {
      for (const auto& item : ranks->items) random.workers.push_back(static_cast<int>(parse_integer(item.scalar).value_or(-1)));
    }
    out.push_back(std::move(random));
  }
  return out;
}

std::vector<double> read_slowdowns(const View& root, int workers) {
  std::vector<double> slowdown(static_cast<std::size_t>(std::max(workers, 0)), 1.0);
  const ConfigNode* rules = root.at("stragglers").node();
  for (std::size_t i = 0; rules != nullptr && i < rules->items.size(); ++i) {
    const View rule(&rules->items[i], "");
    const double factor = rule.number("slowdown").value_or(1.0);
    const ConfigNode* ranks = rule.at("workers").node();
    if (ranks == nullptr) {
      for (double& s : slowdown) s *= factor;
      continue;
    }
    for (const auto& item : ranks->items) {
      const auto rank = parse_integer(item.scalar).value_or(-1);
      if (rank >= 0 && rank < workers) slowdown[static_cast<std::size_t>(rank)] *= factor;
    }
  }
  return slowdown;
}

void check_stragglers_and_failures(const View& root, int workers, core::DiagnosticSink& sink) {
  if (const ConfigNode* rules = root.at("stragglers").node()) {
    for (std::size_t i = 0; i < rules->items.size(); ++i) {
      const View rule(&rules->items[i], fmt::format("stragglers[{}]", i));
      if (!rule.has("slowdown") && !rule.has("distribution") && !rule.has("trace")) {
        sink.error(rule.where(), rule.path(), "a straggler rule needs slowdown, distribution or trace",
                   "for example `slowdown: 4`");
      }
      const ConfigNode* ranks = rule.at("workers").node();
      for (std::size_t r = 0; ranks != nullptr && r < ranks->items.size(); ++r) {
        const auto rank = parse_integer(ranks->items[r].scalar).value_or(0);
        if (rank >= workers) {
          sink.error(ranks->items[r].where, fmt::format("{}.workers[{}]", rule.path(), r),
                     fmt::format("worker {} does not exist; ranks run from 0 to {}", rank, workers - 1));
        }
      }
    }
  }
  if (const ConfigNode* events = root.at("failures").at("events").node()) {
    for (std::size_t i = 0; i < events->items.size(); ++i) {
      const View event(&events->items[i], fmt::format("failures.events[{}]", i));
      if (event.text("kind") != "worker") continue;
      const auto rank = parse_integer(event.text("target"));
      if (!rank || *rank < 0 || *rank >= workers) {
        sink.error(event.where("target"), event.path() + ".target",
                   fmt::format("expected a worker rank from 0 to {}, got \"{}\"", workers - 1, event.text("target")));
      }
    }
  }
}


/// "tensor, pipeline and data": every axis's name a placement must list, in the default placement's order
/// (the context and expert axes may be left out: place_optional_axes puts them).
std::string axis_names() {
  std::vector<std::string_view> names;
  for (const AxisEntry& entry : parallel_axes()) {
    if (entry.always_listed) names.push_back(entry.name);
  }
  const std::string_view last = names.back();
  names.pop_back();
  return fmt::format("{} and {}", fmt::join(names, ", "), last);
}

/// `training.parallelism.placement`: each degree once (the schema's choices are the axes' names).
void read_placement(const View& parallelism, ParallelismSpec& out, core::DiagnosticSink& sink) {
  const core::ConfigNode* list = parallelism.has("placement") ? parallelism.node()->find("placement") : nullptr;
  if (list == nullptr) return;
  out.placement_at = list->where;
  std::vector<ParallelAxis> axes;
  for (const core::ConfigNode& item : list->items) {
    const ParallelAxis axis = axis_named(item.scalar).value_or(ParallelAxis::Data);
    if (std::find(axes.begin(), axes.end(), axis) != axes.end()) {
      sink.error(item.where, "training.parallelism.placement", fmt::format("'{}' is listed twice", item.scalar),
                 fmt::format("list {} once each, innermost first", axis_names()));
      return;
    }
    axes.push_back(axis);
  }
  const auto listed = [&](ParallelAxis axis) { return std::find(axes.begin(), axes.end(), axis) != axes.end(); };
  const auto unlisted = [&](const AxisEntry& entry) { return !entry.always_listed && !listed(entry.axis); };
  const auto left_out = std::count_if(parallel_axes().begin(), parallel_axes().end(), unlisted);
  if (axes.size() + static_cast<std::size_t>(left_out) != parallel_axes().size()) {
    sink.error(list->where, "training.parallelism.placement",
               fmt::format("expected the degrees {} in some order, each once, got {}", axis_names(), axes.size()),
               "for example [tensor, pipeline, data]: tensor groups on consecutive ranks, replicas outermost");
    return;
  }
  out.placement = axes;
}

/// `training.parallelism.pipeline_split`, `pipeline_split_counts` and `pipeline_layout`: how the layers are cut into
/// stages (by FLOPs when none is given). Whether the layout's blocks fit the model is checked with the model.
void read_stage_split(const View& parallelism, ParallelismSpec& out, core::DiagnosticSink& sink) {
  const bool named = parallelism.has("pipeline_split");
  const bool counts = parallelism.has("pipeline_split_counts");
  const bool layout = parallelism.has("pipeline_layout");
  out.stage_split_at = parallelism.where(layout ? "pipeline_layout" : "pipeline_split");
  out.stage_split_counts_at = parallelism.where("pipeline_split_counts");
  // A split of one stage is none (a plan's candidates may have one), but a layout names its stages.
  if (layout && out.pipeline == 1) {
    sink.error(out.stage_split_at, "training.parallelism.pipeline_layout",
               "a layout names each pipeline stage's layers, and there is one stage (pipeline: 1)",
               "set training.parallelism.pipeline above 1, or leave pipeline_layout out");
    return;
  }
  if (layout && (named || counts)) {
    sink.error(parallelism.where("pipeline_layout"), "training.parallelism.pipeline_layout",
               "a layout names every stage's layers, and pipeline_split says how to cut them too",
               "give pipeline_layout, or pipeline_split (with pipeline_split_counts), not both");
    return;
  }
  if (layout) {
    const models::StageLayout read = models::read_stage_layout(parallelism.text("pipeline_layout"));
    if (!read.error.empty()) {
      sink.error(parallelism.where("pipeline_layout"), "training.parallelism.pipeline_layout",
                 fmt::format("the layout does not read: {}", read.error),
                 "spell it as Megatron-Core's pipeline_model_parallel_layout, for example \"Et|(tt|)*30L\"");
      return;
    }
    out.stage_split = models::StageSplit::layout(read.blocks);
    return;
  }
  if (named) out.stage_split.kind = value_named(stage_splits(), parallelism.text("pipeline_split"));
  if (!counts) return;
  if (out.stage_split.kind != models::StageSplit::Kind::Even) {
    sink.error(out.stage_split_counts_at, "training.parallelism.pipeline_split_counts",
               "the embedding and the loss are counted as blocks by an even split, and pipeline_split is not even",
               "set pipeline_split: even, or leave pipeline_split_counts out");
    return;
  }
  for (const core::ConfigNode& item : parallelism.node()->find("pipeline_split_counts")->items) {
    bool& counted = item.scalar == "embedding" ? out.stage_split.embedding_as_block : out.stage_split.loss_as_block;
    if (counted) {
      sink.error(item.where, "training.parallelism.pipeline_split_counts",
                 fmt::format("'{}' is listed twice", item.scalar), "list each part once");
      return;
    }
    counted = true;
  }
}

/// `training.parallelism`: the degrees multiply to the workers. Returns whether they do: otherwise the data-parallel
/// degree is a guess, and what is split over the replicas is not checked against it.
bool read_parallelism(const View& parallelism, int workers, ParallelismSpec& out, core::DiagnosticSink& sink) {
  // Every degree but the data axis's, whose default is what the others leave of the workers.
  for (const AxisEntry& entry : parallel_axes()) {
    if (entry.axis == ParallelAxis::Data) continue;
    const std::string key(entry.name);
    // The expert-tensor degree has no default in the schema: absent, it stays absent from the scenario's echo,
    // which reads back as the same run.
    out.*(entry.declared) = entry.axis == ParallelAxis::ExpertTensor
                                ? static_cast<int>(parallelism.integer(key).value_or(1))
                                : static_cast<int>(parallelism.filled_integer(key));
    out.*(entry.declared_at) = parallelism.where(key);
  }
  // Declared, even at 1, the routed experts have their own grid; absent, the tensor group splits them too.
  out.expert_tensor_declared = parallelism.has(std::string(axis_entry(ParallelAxis::ExpertTensor).name));
  out.sequence_parallel = parallelism.filled_flag("sequence_parallel");
  out.sequence_parallel_at = parallelism.where("sequence_parallel");
  out.microbatches = static_cast<int>(parallelism.filled_integer("microbatches"));
  out.microbatches_at = parallelism.where("microbatches");
  out.schedule = value_named(pipeline_schedules(), parallelism.filled_text("schedule"));
  out.schedule_at = parallelism.where("schedule");
  out.virtual_stages = static_cast<int>(parallelism.filled_integer("virtual_stages"));
  out.virtual_stages_at = parallelism.where("virtual_stages");
  out.context_attention = value_named(context_attentions(), parallelism.filled_text("context_attention"));
  out.context_attention_at = parallelism.where("context_attention");
  // The degrees the workers are divided by before the replicas (tensor x pipeline x context); an axis carved out of
  // another (expert) divides that one's devices instead.
  int model_parallel = 1;
  for (const AxisEntry& entry : parallel_axes()) {
    if (entry.axis != ParallelAxis::Data && !entry.carved_from) model_parallel *= out.*(entry.declared);
  }
  out.data = static_cast<int>(parallelism.integer("data").value_or(std::max(1, workers / model_parallel)));
  out.data_at = parallelism.has("data") ? parallelism.where("data") : parallelism.where();
  out.zero = static_cast<int>(parallelism.filled_integer("zero"));
  out.zero_at = parallelism.where("zero");
  out.all_to_all = {parallelism.filled_text("all_to_all"), parallelism.where("all_to_all")};
  read_placement(parallelism, out, sink);
  place_optional_axes(out);
  read_stage_split(parallelism, out, sink);
  // On the experts' own grid the expert groups are laid over a stage's devices instead (checked with the grid).
  if (!out.expert_tensor_declared && out.data % out.expert != 0) {
    sink.error(out.expert_at, "training.parallelism.expert",
               fmt::format("an expert degree of {} does not divide the {} data-parallel replicas", out.expert, out.data),
               "the expert groups are carved out of the replicas: use a divisor of data");
  }
  if (out.data * model_parallel == workers) return true;
  const bool data_given = parallelism.has("data") && !parallelism.node()->find("data")->defaulted;
  if (!data_given && out.context > 1) {
    sink.error(parallelism.where("context"), "training.parallelism.context",
               fmt::format("tensor x pipeline x context = {} x {} x {} = {} does not divide cluster.workers ({})",
                           out.tensor, out.pipeline, out.context, model_parallel, workers),
               "use degrees whose product divides the workers, or more workers");
    return false;
  }
  if (!data_given) {
    const bool tensor_given = out.tensor > 1;
    sink.error(parallelism.where(tensor_given ? "tensor" : "pipeline"),
               tensor_given ? "training.parallelism.tensor" : "training.parallelism.pipeline",
               out.tensor > 1 && out.pipeline > 1
                   ? fmt::format("tensor x pipeline = {} x {} = {} does not divide cluster.workers ({})", out.tensor,
                                 out.pipeline, model_parallel, workers)
               : tensor_given
                   ? fmt::format("a tensor degree of {} does not divide cluster.workers ({})", out.tensor, workers)
                   : fmt::format("{} pipeline stages do not divide cluster.workers ({})", out.pipeline, workers),
               "use degrees whose product divides the workers, or more workers");
    return false;
  }
  sink.error(parallelism.where("data"), "training.parallelism.data",
             out.context > 1
                 ? fmt::format("data x tensor x pipeline x context = {} x {} x {} x {} = {} workers, and cluster.workers "
                               "is {}",
                               out.data, out.tensor, out.pipeline, out.context, out.data * model_parallel, workers)
                 : fmt::format("data x tensor x pipeline = {} x {} x {} = {} workers, and cluster.workers is {}",
                               out.data, out.tensor, out.pipeline, out.data * model_parallel, workers),
             workers % model_parallel == 0
                 ? fmt::format("use data: {} (cluster.workers / (tensor x pipeline{})), or leave it out",
                               workers / model_parallel, out.context > 1 ? " x context" : "")
                 : out.context > 1 ? "make cluster.workers a multiple of tensor x pipeline x context"
                                   : "make cluster.workers a multiple of tensor x pipeline");
  return false;
}

/// `training.routing`, even when absent.
void read_routing(const View& training, TrainingSpec& out) {
  if (!training.has("routing")) return;
  const View routing = training.at("routing");
  out.routing_at = routing.where();
  out.routing.distribution = value_named(routing_distributions(), routing.filled_text("distribution"));
  if (out.routing.distribution == models::RoutingDistribution::Zipf) out.routing.exponent = routing.filled_number("exponent");
  if (out.routing.distribution == models::RoutingDistribution::Dirichlet) out.routing.alpha = routing.filled_number("alpha");
  if (routing.has("capacity_factor")) out.routing.capacity_factor = *routing.number("capacity_factor");
  if (routing.has("groups")) out.routing.groups = static_cast<int>(*routing.number("groups"));
  if (routing.has("group_limit")) out.routing.group_limit = static_cast<int>(*routing.number("group_limit"));
}

/// `training.communication_precision`: `auto` is what the run's precision keeps each in, for timing-only models
/// on devices that all compute in a reduced precision (`sixteen_bit_default`): 16 bits, except gradients in 32
/// under bf16 and the FP8 and FP4 recipes (`fp32_gradients`), as Megatron-Core reduces them; 32 otherwise. The
/// tokens dispatched to experts travel as the activations do unless declared.
void read_wire_precision(const View& section, bool sixteen_bit_default, bool fp32_gradients, WirePrecision& out) {
  out.at = section.where();
  const auto bytes = [&](const std::string& key, int automatic) {
    const std::string value = section.text(key, "auto");
    if (value != "auto") out.declared = true;
    if (value == "auto") return automatic;
    return value == "fp32" ? 4 : value == "fp8" ? 1 : 2;
  };
  const int sixteen = sixteen_bit_default ? 2 : 4;
  out.gradients = bytes("gradients", sixteen_bit_default && fp32_gradients ? 4 : sixteen);
  out.parameters = bytes("parameters", sixteen);
  out.activations = bytes("activations", sixteen);
  out.dispatch = bytes("dispatch", out.activations);
}

/// A budget (tokens, samples, or epochs of a declared size) is the whole run's length, projected from the
/// iterations it simulates: it takes no other stop condition.
void check_budget(const View& stop, const TrainingSpec& out, core::DiagnosticSink& sink) {
  const char* size_key = out.tokens_per_epoch ? "tokens_per_epoch" : "samples_per_epoch";
  if (out.samples_per_epoch && out.tokens_per_epoch) {
    sink.error(stop.key_where("tokens_per_epoch"), "training.stop.tokens_per_epoch",
               "an epoch's size is samples or tokens, not both", "keep one of them");
    return;
  }
  if (out.sized_epochs() && !out.epochs) {
    sink.error(stop.key_where(size_key), fmt::format("training.stop.{}", size_key),
               "sizes the epochs of training.stop.epochs, which is not given",
               fmt::format("a budget is `stop: {{epochs: E, {}: N}}`, `{{tokens: N}}` or `{{samples: N}}`; "
                           "add epochs, or remove {}",
                           size_key, size_key));
    return;
  }
  if (!out.tokens && !out.samples && !out.sized_epochs()) return;
  if (out.tokens && out.samples) {
    sink.error(stop.where("samples"), "training.stop.samples", "a run's budget is tokens or samples, not both",
               "keep one of them");
    return;
  }
  const std::string budget = out.tokens ? "tokens" : out.samples ? "samples" : "epochs";
  for (const char* other : {"epochs", "iterations", "target_loss", "target_accuracy", "sim_time"}) {
    if (!stop.has(other) || budget == other) continue;
    sink.error(stop.key_where(other), fmt::format("training.stop.{}", other),
               fmt::format("a budget of {} is projected from a few simulated iterations and takes no other stop "
                           "condition",
                           budget),
               budget == "epochs" ? fmt::format("keep training.stop.epochs and {} alone, or remove the budget", size_key)
                                  : fmt::format("keep training.stop.{} alone, or remove the budget", budget));
  }
}

/// `training.stop`: the conditions that end the run, and a budget's, each checked against the others.
void read_stop(const View& stop, TrainingSpec& out, core::DiagnosticSink& sink) {
  out.epochs = stop.integer("epochs");
  out.iterations = stop.integer("iterations");
  out.tokens = stop.number("tokens");
  out.samples = stop.number("samples");
  out.budget_at = stop.has("tokens") ? stop.where("tokens") : stop.has("samples") ? stop.where("samples") : stop.where("epochs");
  out.samples_per_epoch = stop.number("samples_per_epoch");
  out.tokens_per_epoch = stop.number("tokens_per_epoch");
  out.epoch_size_at = stop.has("tokens_per_epoch") ? stop.key_where("tokens_per_epoch") : stop.key_where("samples_per_epoch");
  out.stop_loss = stop.number("target_loss");
  out.stop_accuracy = stop.number("target_accuracy");
  out.stop_target_at = stop.has("target_loss") ? stop.key_where("target_loss") : stop.key_where("target_accuracy");
  if (out.stops_at_target() && !out.epochs && !out.iterations && !out.tokens && !out.samples) {
    sink.error(out.stop_target_at, out.stop_loss ? "training.stop.target_loss" : "training.stop.target_accuracy",
               "a target stops the run early, and nothing bounds it if the target is never reached",
               "add epochs or iterations beside it: the most the run may take");
  }
  // An epoch size alone is reported by check_budget, at its key.
  if (!stop.has("epochs") && !stop.has("iterations") && !stop.has("target_loss") && !stop.has("target_accuracy") &&
      !stop.has("sim_time") && !out.tokens && !out.samples && !out.sized_epochs()) {
    sink.error(stop.where(), "training.stop", "needs at least one stop condition",
               "give epochs or iterations, for example `epochs: 5`; a timing-only profile also takes a budget: "
               "`stop: {tokens: N}`, `{samples: N}` or `{epochs: E, samples_per_epoch: N}`");
  }
  check_budget(stop, out, sink);
}

/// `training.recompute_modules`: each module once, and only under selective recomputation (the schema's choices
/// are the modules' names).
void read_recompute_modules(const View& training, TrainingSpec& out, core::DiagnosticSink& sink) {
  const core::ConfigNode* list = training.has("recompute_modules") ? training.node()->find("recompute_modules") : nullptr;
  if (list == nullptr) return;
  out.recompute_modules_declared = true;
  out.recompute_modules_at = list->where;
  unsigned modules = 0;
  for (const core::ConfigNode& item : list->items) {
    const auto& table = recomputed_modules();
    const auto named = std::find_if(table.begin(), table.end(), [&](const auto& entry) { return entry.name == item.scalar; });
    if (named == table.end()) return;  // the schema's choices report it
    const auto bit = static_cast<unsigned>(named->value);
    if ((modules & bit) != 0U) {
      sink.error(item.where, "training.recompute_modules", fmt::format("'{}' is listed twice", item.scalar),
                 "list each module once");
      return;
    }
    modules |= bit;
  }
  if (out.recomputation != models::Recomputation::Selective) {
    sink.error(list->where, "training.recompute_modules",
               fmt::format("modules are recomputed under selective recomputation, and recomputation is '{}'",
                           to_string(out.recomputation)),
               "set training.recomputation: selective, or leave recompute_modules out");
    return;
  }
  if (modules == 0U) {
    sink.error(list->where, "training.recompute_modules", "an empty list recomputes nothing",
               "use recomputation: none, or list the modules to recompute (core_attn when absent)");
    return;
  }
  out.recompute_modules = modules;
}

void read_training(const View& training, int workers, const Registries& registries, TrainingSpec& out,
                   core::DiagnosticSink& sink) {
  const bool replicas_known = read_parallelism(training.at("parallelism"), workers, out.parallelism, sink);
  out.check_memory = training.filled_flag("check_memory");
  out.check_memory_at = training.where("check_memory");
  if (training.has("overlap") && !training.node()->find("overlap")->defaulted) {
    out.overlap = training.text("overlap") == "true";
  }
  out.overlap_at = training.where("overlap");
  out.overlap_parameter_gather = training.filled_flag("overlap_parameter_gather");
  out.overlap_parameter_gather_at = training.where("overlap_parameter_gather");
  out.overlap_expert_exchange = training.filled_flag("overlap_expert_exchange");
  out.overlap_expert_exchange_at = training.where("overlap_expert_exchange");
  out.overlap_tensor_communication = training.filled_flag("overlap_tensor_communication");
  out.overlap_tensor_communication_at = training.where("overlap_tensor_communication");
  out.bucket_bytes = core::parse_size(training.filled_text("bucket_size")).value();
  out.recomputation = value_named(recomputations(), training.filled_text("recomputation"));
  out.recomputation_at = training.where("recomputation");
  read_recompute_modules(training, out, sink);
  read_routing(training, out);
  out.token_dispatcher = value_named(token_dispatchers(), training.filled_text("token_dispatcher"));
  out.token_dispatcher_at = training.where("token_dispatcher");
  out.communication_library = value_named(communication_libraries(), training.filled_text("communication_library"));
  const std::string& backend = training.filled_text("backend");
  out.backend = value_named(backends(), backend);
  out.backend_at = training.where("backend");
  const View batch = training.at("batch");
  out.batch_at = batch.where();
  if (batch.has("per_worker") == batch.has("global")) {
    sink.error(batch.has("global") ? batch.key_where("global") : batch.where(), "training.batch",
               batch.has("global") ? "give per_worker or global, not both" : "needs per_worker or global",
               "for example `per_worker: 32`");
  } else if (auto per_worker = batch.integer("per_worker")) {
    out.batch_per_worker = static_cast<int>(*per_worker);
    out.batch_at = batch.where("per_worker");
  } else {
    // The stages of one pipeline pass the same samples along: the batch is split over the replicas.
    const int replicas = out.parallelism.data;
    const std::int64_t global = *batch.integer("global");
    out.batch_declared_global = true;
    out.batch_at = batch.where("global");
    if (replicas_known && global % replicas != 0) {
      sink.error(batch.where("global"), "training.batch.global",
                 fmt::format("{} samples cannot be split evenly over {} {}", global, replicas,
                             replicas == workers ? "workers" : "data-parallel replicas"),
                 fmt::format("use a multiple of {}, such as {}", replicas, (global / replicas + 1) * replicas));
    }
    out.batch_per_worker = static_cast<int>(std::max<std::int64_t>(1, global / replicas));
  }
  const View optimizer = training.at("optimizer");
  out.optimizer.kind = optimizer.located("kind");
  out.optimizer.learning_rate = *optimizer.number("learning_rate");
  out.optimizer.parameters =
      declared_values(registries.optimizers.find(out.optimizer.kind.value).factory.parameters, optimizer);
  const View sync = training.at("sync");
  out.sync_strategy = sync.located("strategy");
  // The chosen strategy's own parameters, as validated (defaults filled), for it alone to read and check.
  const auto& strategy = registries.strategies.find(out.sync_strategy.value).factory;
  out.sync_parameters = declared_values(strategy.parameters, sync);
  if (strategy.check) strategy.check(out.sync_parameters, {out.optimizer.learning_rate, workers}, sink);
  const View architecture = training.at("architecture");
  out.architecture_at = architecture.where("kind");
  const std::string kind = architecture.text("kind");
  out.architecture = value_named(architectures(), kind);
  out.allreduce_algorithm = architecture.located("algorithm");
  // Shards apply to the architectures with servers only.
  if (architecture.has("shards")) out.shards = static_cast<int>(architecture.filled_integer("shards"));
  out.shards_at = architecture.has("shards") ? architecture.where("shards") : architecture.where("kind");
  read_stop(training.at("stop"), out, sink);
  if (auto every = training.integer("evaluate_every")) out.evaluate_every = static_cast<int>(*every);
}

/// Declared servers hold one shard each: fewer leave shards without a server, more stand idle.
/// `model.attention: auto`: fused when frameworks fuse attention on every worker's device, unfused otherwise,
/// with the reason kept for `dtsim explain`.
void resolve_attention(Scenario& s) {
  ConfigNode* attention = s.model.section.find("attention");
  if (attention == nullptr || !attention->is_scalar() || attention->scalar != "auto") return;
  std::string unfusing;
  for (int rank = 0; rank < s.cluster.workers && unfusing.empty(); ++rank) {
    const DeviceProfile& device = s.cluster.device_of(rank);
    if (!frameworks_fuse_attention(device.name)) unfusing = device.name;
  }
  attention->scalar = unfusing.empty() ? "fused" : "unfused";
  attention->note = unfusing.empty()
                        ? fmt::format("auto, fused: frameworks fuse attention (FlashAttention) on {}",
                                      s.cluster.device_of(0).name)
                        : fmt::format("auto, unfused: no fused attention (FlashAttention) on {}", unfusing);
}

void check_server_count(const Scenario& s, core::DiagnosticSink& sink) {
  if (!s.cluster.server_count) return;
  const int servers = *s.cluster.server_count;
  if (!has_servers(s.training.architecture)) {
    sink.error(s.cluster.server_count_at, "cluster.servers.count",
               fmt::format("the {} architecture has no parameter servers", to_string(s.training.architecture)),
               "remove cluster.servers, or use training.architecture.kind: parameter_server or hybrid");
  } else if (servers != s.training.shards) {
    sink.error(s.cluster.server_count_at, "cluster.servers.count",
               servers < s.training.shards
                   ? fmt::format("{} shards need one server each, and {} are declared", s.training.shards, servers)
                   : fmt::format("{} servers for {} shard{} would leave {} server{} idle", servers, s.training.shards,
                                 s.training.shards == 1 ? "" : "s", servers - s.training.shards,
                                 servers - s.training.shards == 1 ? "" : "s"),
               fmt::format("set training.architecture.shards: {}, or cluster.servers.count: {}", servers,
                           s.training.shards));
  }
}

/// `cluster`: the workers, their devices, the nodes that hold them, the servers.
void read_cluster(const View& cluster, ClusterSpec& c, core::DiagnosticSink& sink) {
  c.workers = static_cast<int>(*cluster.integer("workers"));
  c.workers_at = cluster.where("workers");
  c.device = read_device(cluster, sink);
  const int devices = total_devices(cluster, sink);
  if (devices >= 0 && c.workers > devices) {
    sink.error(cluster.where("workers"), "cluster.workers",
               fmt::format("{} workers need one device each, but cluster.nodes hold only {} devices",
                           c.workers, devices),
               "lower cluster.workers or add nodes");
  }

  c.nodes = read_node_groups(cluster, c.device, sink);
  c.worker_devices = read_worker_devices(cluster, c.workers, c.device, c.nodes, sink);
  c.server_device = read_server_device(cluster, c.device, sink);
  if (const auto count = cluster.at("servers").integer("count")) {
    c.server_count = static_cast<int>(*count);
    c.server_count_at = cluster.at("servers").where("count");
  }
}

/// `model` and `data`: a timing-only layer table trains on no data, every other model on some.
void read_model_and_data(const View& root, const Registries& registries, Scenario& s, core::DiagnosticSink& sink) {
  s.model.kind = root.at("model").located("kind");
  s.model.section = *root.at("model").node();
  s.model.timing_only = registries.models.find(s.model.kind.value).factory.timing_only();
  resolve_attention(s);
  const View data = root.at("data");
  s.data.kind = data.located("kind");
  if (data.node() != nullptr) s.data.validation_fraction = data.filled_number("validation_fraction");
  s.data.validation_fraction_at = data.where("validation_fraction");
  if (data.node() != nullptr) s.data.section = *data.node();
  if (!s.data.kind.value.empty()) {
    const datasets::DataPlugin& data_set = registries.data_sets.find(s.data.kind.value).factory;
    if (data_set.check) data_set.check(data, sink);
  }
  // Profiles are timing-only: no data, so no epochs; every other model needs data.
  if (!s.model.timing_only && s.data.kind.value.empty()) {
    sink.error(root.where(), "data", "missing required key", "add what the model trains on, for example `data: {kind: digits}`");
  }
  if (s.model.timing_only && !s.data.kind.value.empty()) {
    sink.error(root.key_where("data"), "data",
               fmt::format("'{}' is a timing-only layer table, which trains on no data", s.model.kind.value),
               "remove data; the run computes no values, only time and traffic");
  }
  const View stop = root.at("training").at("stop");
  const bool sized = stop.has("samples_per_epoch") || stop.has("tokens_per_epoch");
  if (s.model.timing_only && stop.has("epochs") && !sized) {
    sink.error(stop.key_where("epochs"), "training.stop.epochs",
               "epochs are passes over a data set, and a timing-only profile has none: its size is not known",
               "give the data set's size beside them (training.stop.samples_per_epoch or tokens_per_epoch), or "
               "training.stop.iterations");
  }
  if (!s.model.timing_only && sized) {
    const char* key = stop.has("tokens_per_epoch") ? "tokens_per_epoch" : "samples_per_epoch";
    sink.error(stop.key_where(key), fmt::format("training.stop.{}", key),
               fmt::format("'{}' trains for real on its own data set, whose size sets its epochs", s.model.kind.value),
               fmt::format("remove training.stop.{}", key));
  }
}

void read_outputs(const View& outputs, Scenario& s) {
  if (outputs.has("folder")) s.output_folder = outputs.text("folder");
  s.output_folder_at = outputs.has("folder") ? outputs.where("folder") : outputs.where();
  s.target_loss = outputs.number("target_loss");
  s.target_loss_at = outputs.where("target_loss");
  s.target_accuracy = outputs.number("target_accuracy");
  s.target_accuracy_at = outputs.where("target_accuracy");
  s.outputs.trace = outputs.filled_flag("trace");
  s.outputs.trace_iterations = outputs.filled_integer("trace_iterations");
  s.outputs.trace_hosts = outputs.filled_integer("trace_hosts");
  s.outputs.trace_events = outputs.filled_integer("trace_events");
  s.outputs.report = outputs.filled_flag("report");
}

}  // namespace

Scenario build_scenario(const ConfigNode& document, const Registries& registries, const std::string& source,
                        const std::string& sweep_point, core::DiagnosticSink& sink, int topology_workers,
                        const std::string& name_key) {
  const View root(&document, "");
  Scenario s;
  s.cluster.topology_workers = topology_workers;
  s.source = source;
  s.sweep_point = sweep_point;
  s.name = root.text("name");
  s.description = root.text("description");
  if (s.name.empty() || s.name.find_first_of("/\\") != std::string::npos || s.name == "." || s.name == "..") {
    sink.error(root.where("name"), name_key, fmt::format("must be a plain folder name, got \"{}\"", s.name),
               "the name becomes a folder under out/; use letters, digits, '-' and '_'");
  }
  s.seed = static_cast<std::uint64_t>(root.filled_integer("seed"));

  read_cluster(root.at("cluster"), s.cluster, sink);

  const View topology = root.at("topology");
  s.topology.kind = topology.located("kind");
  s.topology.link = read_link(topology.at("link"));
  s.topology.network_model = value_named(network_models(), topology.text("network_model"));
  s.topology.network_model_at = topology.where("network_model");
  s.topology.section = *topology.node();
  check_hierarchy(root, s, registries, sink);

  read_model_and_data(root, registries, s, sink);
  const View data = root.at("data");
  // Timing-only profiles have no data section, and so no partitioning.
  if (data.node() != nullptr) s.data.partitioning = value_named(partitionings(), data.at("partitioning").filled_text("kind"));
  s.data.partitioning_at = data.at("partitioning").where("kind");
  if (const auto alpha = data.at("partitioning").number("alpha")) s.data.alpha = *alpha;
  read_training(root.at("training"), s.cluster.workers, registries, s.training, sink);
  if (!s.model.timing_only && (s.training.tokens || s.training.samples)) {
    sink.error(s.training.budget_at, s.training.tokens ? "training.stop.tokens" : "training.stop.samples",
               fmt::format("a budget projects a timing-only run from a few simulated iterations, and '{}' trains for "
                           "real",
                           s.model.kind.value),
               "give training.stop.epochs or iterations, or use a timing-only profile (model.kind: profile:...)");
  }
  {
    // After the training section: attached parameter servers take host ports.
    topologies::TopologyContext context = topology_context(s);
    context.nodes_declared = root.at("cluster").has("nodes");
    topologies::check_topology(registries.topologies, s.topology.kind.value, topology, context, sink);
  }
  check_server_count(s, sink);
  // Every worker computes in cluster.device's precision (read_worker_devices).
  const ComputePrecision precision = s.cluster.device.precision;
  const View wire = root.at("training").at("communication_precision");
  read_wire_precision(wire, s.model.timing_only && reduced(precision), fp32_gradients(precision), s.training.wire);
  if (!s.model.timing_only && s.training.wire.declared &&
      (s.training.wire.gradients != 4 || s.training.wire.parameters != 4 || s.training.wire.activations != 4 ||
       s.training.wire.dispatch != 4)) {
    sink.error(wire.where(), "training.communication_precision",
               fmt::format("'{}' trains for real, and its values travel as fp32", s.model.kind.value),
               "leave communication_precision out, or use fp32");
  }
  check_stragglers_and_failures(root, s.cluster.workers, sink);
  s.cluster.slowdown = read_slowdowns(root, s.cluster.workers);
  s.cluster.random_slowdowns = read_random_slowdowns(root);
  s.cluster.speed_traces = read_speed_traces(root, s.cluster.workers, sink);
  s.link_traces = read_link_traces(root, sink);
  s.background_traffic = read_background_traffic(root);
  s.link_conditions = read_link_conditions(root);
  s.failures = read_failures(root, s.cluster, sink);
  s.energy = read_energy(root, s.cluster, has_servers(s.training.architecture), sink);
  read_outputs(root.at("outputs"), s);
  return s;
}

void write_resolved_defaults(const Scenario& s, ConfigNode& document) {
  const ConfigNode* attention = s.model.section.find("attention");
  ConfigNode* model = document.find("model");
  if (attention == nullptr || model == nullptr || model->find("attention") == nullptr) return;
  *model->find("attention") = *attention;
}

topologies::TopologyContext topology_context(const Scenario& s) {
  topologies::TopologyContext context;
  context.workers = s.cluster.topology_workers > 0 ? s.cluster.topology_workers : s.cluster.workers;
  context.seed = s.seed;
  context.attach_servers = has_servers(s.training.architecture);
  context.servers = context.attach_servers ? s.cluster.server_count.value_or(s.training.shards) : 1;
  context.nodes_declared = !s.cluster.nodes.empty();
  context.link = s.topology.link;
  for (const NodeGroup& group : s.cluster.nodes) {
    context.nodes.push_back({group.count, group.devices, group.intra_link, group.intra, group.nics});
  }
  return context;
}

topology::TopologyGraph build_topology(const Scenario& s, const topologies::TopologyRegistry& registry) {
  return topologies::build_topology(registry, s.topology.kind.value, View(&s.topology.section, "topology"),
                                    topology_context(s));
}

}  // namespace dtsim::scenario
