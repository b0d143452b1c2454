#include "sim/app/chakra_pipeline.hpp"

#include "sim/app/calibration_search.hpp"
#include "sim/app/chakra_rank_trace.hpp"
#include "sim/app/chakra_replay.hpp"
#include "sim/app/iteration_simulation.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/scenario/parallel_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace dtsim::app {
namespace {

/// A pass of the order: (forward, micro-batch).
using PassStep = std::pair<bool, int>;

/// Writes the rank's passes one after the other, each waiting for the compute before it.
class StageWriter {
 public:
  explicit StageWriter(const StageRank& r) : r_(r), out_(r.rate) {}

  void forward(int micro) {
    const std::string suffix = fmt::format(".mb{}", micro);
    if (r_.previous_rank >= 0) {
      previous_ = {out_.message(true, "receive.activations" + suffix, r_.to_previous_bytes, r_.previous_rank, r_.rank,
                                pipeline_tag(micro, false), previous_)};
    }
    for (const models::LayerProfile& layer : r_.timed.layers) {
      previous_ = {out_.compute(layer.name + ".fwd" + suffix, layer.forward_flops, previous_)};
    }
    if (r_.next_rank >= 0) {
      out_.message(false, "send.activations" + suffix, r_.to_next_bytes, r_.rank, r_.next_rank,
                   pipeline_tag(micro, false), previous_);
    }
  }

  /// A micro-batch's backward pass; `last`: the iteration's last, after which each layer's gradients are done.
  void backward(int micro, bool last) {
    const std::string suffix = fmt::format(".mb{}", micro);
    if (r_.next_rank >= 0) {
      previous_ = {out_.message(true, "receive.gradients" + suffix, r_.to_next_bytes, r_.next_rank, r_.rank,
                                pipeline_tag(micro, true), previous_)};
    }
    for (auto layer = r_.timed.layers.rbegin(); layer != r_.timed.layers.rend(); ++layer) {
      previous_ = {out_.compute(layer->name + ".bwd" + suffix, layer->backward_flops, previous_)};
      if (last && !r_.replica_group.empty() && layer->parameters > 0.0) {
        reduced_.push_back(out_.allreduce(layer->name + ".gradients", layer->parameters * r_.gradient_bytes,
                                          previous_.front(), r_.replica_group));
      }
    }
    if (r_.previous_rank >= 0) {
      out_.message(false, "send.gradients" + suffix, r_.to_previous_bytes, r_.rank, r_.previous_rank,
                   pipeline_tag(micro, true), previous_);
    }
  }

  traces::ChakraTrace finish() {
    reduced_.insert(reduced_.end(), previous_.begin(), previous_.end());
    out_.compute("optimizer.step", r_.optimizer_flops, reduced_);
    return out_.trace();
  }

 private:
  const StageRank& r_;
  ChakraRankTrace out_;
  std::vector<std::uint64_t> previous_;
  std::vector<std::uint64_t> reduced_;
};

std::vector<PassStep> schedule_order(models::PipelineSchedule schedule, int stages, int stage, int microbatches) {
  std::vector<PassStep> out;
  for (const models::PipelinePass& pass : models::pipeline_passes(schedule, stages, stage, microbatches)) {
    out.emplace_back(pass.forward, pass.microbatch);
  }
  return out;
}

/// The order of a trace's passes, from its compute nodes' names (`X.fwd.mbK`, `X.bwd.mbK`).
std::vector<PassStep> traced_order(const traces::ChakraTrace& trace) {
  std::vector<PassStep> out;
  for (const traces::ChakraNode& node : trace.nodes) {
    if (node.type != traces::ChakraNodeType::compute) continue;
    const ChakraPass pass = chakra_pass_of(node.name);
    if (pass.layer == "optimizer.step") continue;
    const PassStep step{!pass.backward, pass.microbatch};
    if (out.empty() || out.back() != step) out.push_back(step);
  }
  return out;
}

/// Refuses a stage's trace whose micro-batches or order of passes are not the scenario's.
void check_order(const traces::ChakraTrace& trace, const std::string& file, int stage,
                 const scenario::ParallelismSpec& plan) {
  const std::vector<PassStep> order = traced_order(trace);
  int microbatches = 0;
  for (const PassStep& step : order) microbatches = std::max(microbatches, step.second + 1);
  if (microbatches != plan.microbatches) {
    refuse_input(
        file, "nodes",
        fmt::format("stage {}'s trace runs {} micro-batches, the scenario {}", stage, microbatches, plan.microbatches),
        fmt::format("set training.parallelism.microbatches: {}", microbatches));
  }
  if (order == schedule_order(plan.schedule, plan.pipeline, stage, plan.microbatches)) return;
  for (const models::PipelineSchedule other :
       {models::PipelineSchedule::GPipe, models::PipelineSchedule::OneForwardOneBackward}) {
    if (order == schedule_order(other, plan.pipeline, stage, plan.microbatches)) {
      refuse_input(file, "nodes",
                   fmt::format("stage {}'s trace runs its passes in {}'s order, the scenario's schedule is {}", stage,
                               scenario::to_string(other), scenario::to_string(plan.schedule)),
                   fmt::format("set training.parallelism.schedule: {}", scenario::to_string(other)));
    }
  }
  refuse_input(file, "nodes", fmt::format("stage {}'s passes follow neither GPipe's order nor 1F1B's", stage),
               "replay a pipeline trace of one model chunk a device, under gpipe or 1f1b");
}

/// The bytes of the trace's first forward send (its activations, to `to`), refusing one sent elsewhere.
std::int64_t activations_sent(const traces::ChakraTrace& trace, const std::string& file, int stage, int to) {
  for (const traces::ChakraNode& node : trace.nodes) {
    if (node.type != traces::ChakraNodeType::send || !node.comm_tag || *node.comm_tag % 2 != 0) continue;
    if (node.comm_dst && *node.comm_dst != to) {
      refuse_input(file, "comm_dst",
                   fmt::format("stage {} sends its activations to rank {}; the scenario places stage {} on rank {}",
                               stage, *node.comm_dst, stage + 1, to),
                   "give the scenario of the traced job: its workers and training.parallelism.placement");
    }
    return node.comm_size.value_or(0);
  }
  refuse_input(file, "nodes", fmt::format("stage {} sends no activations on to stage {}", stage, stage + 1),
               "give the traces of every stage of a pipeline job (PREFIX.RANK.et)");
}

/// The operations of the trace's optimizer step; 0 where it has none.
double optimizer_operations(const traces::ChakraTrace& trace) {
  for (const traces::ChakraNode& node : trace.nodes) {
    if (node.type == traces::ChakraNodeType::compute && node.name == "optimizer.step" && node.num_ops) {
      return static_cast<double>(*node.num_ops);
    }
  }
  return 0.0;
}

}  // namespace

bool chakra_pipeline_only(const scenario::ParallelismSpec& plan) {
  return plan.pipeline > 1 && plan.tensor == 1 && plan.expert == 1 && plan.expert_tensor == 1 && plan.context == 1 &&
         plan.virtual_stages == 1;
}

bool chakra_pipeline_schedule(models::PipelineSchedule schedule) {
  return schedule == models::PipelineSchedule::GPipe || schedule == models::PipelineSchedule::OneForwardOneBackward;
}

traces::ChakraTrace pipeline_rank_trace(const StageRank& rank) {
  const std::vector<models::PipelinePass> passes =
      models::pipeline_passes(rank.schedule, rank.stages, rank.stage, rank.microbatches);
  StageWriter out(rank);
  for (std::size_t i = 0; i < passes.size(); ++i) {
    if (passes[i].forward) {
      out.forward(passes[i].microbatch);
    } else {
      const bool last = std::none_of(passes.begin() + static_cast<std::ptrdiff_t>(i) + 1, passes.end(),
                                     [](const models::PipelinePass& p) { return !p.forward; });
      out.backward(passes[i].microbatch, last);
    }
  }
  return out.finish();
}

std::string replay_pipeline(const scenario::Scenario& s, const std::filesystem::path& scenario_file,
                            const std::filesystem::path& prefix, const checks::Registries& registries) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  if (!chakra_pipeline_schedule(plan.schedule)) {
    refuse_input(
        scenario_file.string(), "training.parallelism.schedule",
        fmt::format("a pipeline trace is replayed under gpipe or 1f1b, not {}", scenario::to_string(plan.schedule)),
        "set training.parallelism.schedule to the traced job's");
  }
  const runtime::TrainingSetup setup = checks::resolve_scenario(s, registries);
  const double per_parameter = setup.make_optimizer(0)->flops(1 << 20) / static_cast<double>(1 << 20);
  const double batch = static_cast<double>(s.training.batch_per_worker / plan.microbatches);
  models::ModelProfile all{"chakra", "a replayed pipeline's Chakra traces", "one traced sample", {}, {}};
  std::vector<std::size_t> stage_layers{0};
  std::size_t nodes = 0;
  for (int stage = 0; stage < plan.pipeline; ++stage) {
    scenario::ParallelCoordinates at;
    at[scenario::ParallelAxis::Pipeline] = stage;
    const int rank = scenario::rank_of(plan, at);
    const std::filesystem::path file = traces::chakra_rank_file(prefix, rank);
    const traces::ChakraTrace trace = traces::read_chakra_trace(file);
    nodes += trace.nodes.size();
    check_order(trace, file.string(), stage, plan);
    models::ModelProfile layers =
        replayed_layers(trace, file.string(), s.cluster.device_of(rank), batch, s.training.wire.gradients);
    // Without replicas no allreduce says how many parameters a stage holds: its optimizer's operations do.
    if (layers.parameters() == 0.0) layers.layers.back().parameters = optimizer_operations(trace) / per_parameter;
    if (stage + 1 < plan.pipeline) {
      at[scenario::ParallelAxis::Pipeline] = stage + 1;
      const auto sent = static_cast<double>(activations_sent(trace, file.string(), stage, scenario::rank_of(plan, at)));
      // The run sends a boundary layer's activations (counted at 4 bytes a value) at the wire's precision.
      layers.layers.back().activation_bytes = sent * 4.0 / s.training.wire.activations / batch;
    }
    for (models::LayerProfile& layer : layers.layers) {
      layer.block = static_cast<int>(all.layers.size());
      all.layers.push_back(std::move(layer));
    }
    stage_layers.push_back(all.layers.size());
  }
  const double seconds = simulate_iteration(s, registries, &all, stage_layers);
  return fmt::format(
      "replayed {} stages ({} nodes) as {} layers of {:.6g} parameters, {} micro-batches under {}, on {} workers of "
      "{}: {:.9g} s an iteration\n",
      plan.pipeline, nodes, all.layers.size(), all.parameters(), plan.microbatches, scenario::to_string(plan.schedule),
      s.cluster.workers, scenario_file.filename().string(), seconds);
}

}  // namespace dtsim::app
