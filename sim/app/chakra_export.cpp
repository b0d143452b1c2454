#include "sim/app/chakra_export.hpp"

#include "models/device_share.hpp"
#include "sim/app/calibration_search.hpp"
#include "sim/app/chakra_pipeline.hpp"
#include "sim/app/chakra_rank_trace.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/runtime/context/training_context.hpp"
#include "sim/scenario/parallel_layout.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "sim/traces/chakra_trace.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace dtsim::app {
namespace {

/// One iteration of a data-parallel rank: every micro-batch's forward and backward passes, the last
/// backward pass handing each layer's gradients to an allreduce as it finishes, the optimizer after all.
traces::ChakraTrace rank_trace(const models::ModelProfile& timed, double rate, int microbatches, int gradient_bytes,
                               double optimizer_flops) {
  ChakraRankTrace out(rate);
  std::vector<std::uint64_t> previous;
  std::vector<std::uint64_t> reduced;
  for (int micro = 0; micro < microbatches; ++micro) {
    const std::string suffix = microbatches > 1 ? fmt::format(".mb{}", micro) : "";
    for (const models::LayerProfile& layer : timed.layers) {
      previous = {out.compute(layer.name + ".fwd" + suffix, layer.forward_flops, previous)};
    }
    for (auto layer = timed.layers.rbegin(); layer != timed.layers.rend(); ++layer) {
      previous = {out.compute(layer->name + ".bwd" + suffix, layer->backward_flops, previous)};
      if (micro + 1 == microbatches && layer->parameters > 0.0) {
        reduced.push_back(
            out.allreduce(layer->name + ".gradients", layer->parameters * gradient_bytes, previous.front()));
      }
    }
  }
  reduced.insert(reduced.end(), previous.begin(), previous.end());
  out.compute("optimizer.step", optimizer_flops, reduced);
  return out.trace();
}

/// Each rank's encoded trace, the ranks that do the same work sharing one.
struct EncodedTraces {
  std::vector<std::string> distinct;
  std::vector<std::size_t> of_rank;
};

/// A data-parallel run's ranks on one kind of device do the same work: each kind's trace is built once.
EncodedTraces data_parallel_traces(const scenario::Scenario& s, const runtime::TrainingSetup& setup) {
  const int microbatches = std::max(1, s.training.parallelism.microbatches);
  const double batch = static_cast<double>(s.training.batch_per_worker / microbatches);
  const models::ModelProfile share = models::device_share(setup.profile(), scenario::device_share_of(s.training));
  std::vector<scenario::DeviceProfile> kinds;
  EncodedTraces out;
  for (int rank = 0; rank < s.cluster.workers; ++rank) {
    const scenario::DeviceProfile& device = s.cluster.device_of(rank);
    const auto known = std::find(kinds.begin(), kinds.end(), device);
    out.of_rank.push_back(static_cast<std::size_t>(known - kinds.begin()));
    if (known != kinds.end()) continue;
    kinds.push_back(device);
    const models::ModelProfile timed = compute::host_flops(share, batch, device);
    const auto parameters = static_cast<std::size_t>(std::llround(timed.parameters()));
    out.distinct.push_back(
        traces::encode_chakra_trace(rank_trace(timed, compute::sustained_rate(device).value(), microbatches,
                                               s.training.wire.gradients, setup.make_optimizer(0)->flops(parameters))));
  }
  return out;
}

/// A pipeline's ranks: each stage's rank its own trace, its messages naming its neighbours. `groups` gets each
/// stage's replicas (the process groups its allreduces name) where there are several.
EncodedTraces pipeline_traces(const scenario::Scenario& s, const runtime::TrainingSetup& setup,
                              nlohmann::json& groups) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const double microbatch = static_cast<double>(s.training.batch_per_worker / plan.microbatches);
  // The run sends a boundary layer's activations (counted at 4 bytes a value) at the wire's precision.
  const auto message_bytes = [&](const models::LayerProfile& layer) {
    return static_cast<std::int64_t>(
        4 * runtime::wire_elements(layer.activation_bytes / 4.0 * microbatch, s.training.wire.activations, 1));
  };
  EncodedTraces out;
  for (int rank = 0; rank < s.cluster.workers; ++rank) {
    scenario::ParallelCoordinates at = scenario::coordinates_of(plan, rank);
    StageRank r;
    r.rank = rank;
    r.stage = at[scenario::ParallelAxis::Pipeline];
    r.stages = plan.pipeline;
    r.microbatches = plan.microbatches;
    r.schedule = plan.schedule;
    const std::size_t first = setup.stage_layers[static_cast<std::size_t>(r.stage)];
    const std::size_t last = setup.stage_layers[static_cast<std::size_t>(r.stage) + 1];
    const models::ModelProfile whole = models::stage_profile(setup.profile(), first, last);
    const scenario::DeviceProfile& device = s.cluster.device_of(rank);
    r.timed =
        compute::host_flops(models::device_share(whole, scenario::device_share_of(s.training)), microbatch, device);
    r.rate = compute::sustained_rate(device).value();
    for (const int step : {-1, 1}) {
      if (r.stage + step < 0 || r.stage + step >= plan.pipeline) continue;
      at[scenario::ParallelAxis::Pipeline] = r.stage + step;
      (step < 0 ? r.previous_rank : r.next_rank) = scenario::rank_of(plan, at);
    }
    r.to_next_bytes = message_bytes(whole.layers.back());
    if (first > 0) r.to_previous_bytes = message_bytes(setup.profile().layers[first - 1]);
    if (const std::vector<int> replicas = scenario::replica_group(plan, rank); replicas.size() > 1) {
      r.replica_group = std::to_string(r.stage + 1);
      groups[r.replica_group] = replicas;
    }
    r.gradient_bytes = s.training.wire.gradients;
    r.optimizer_flops = setup.make_optimizer(0)->flops(static_cast<std::size_t>(std::llround(r.timed.parameters())));
    out.of_rank.push_back(out.distinct.size());
    out.distinct.push_back(traces::encode_chakra_trace(pipeline_rank_trace(r)));
  }
  return out;
}

/// Refuses a scenario whose runs are not written: neither data-parallel nor a pipeline of GPipe or 1F1B.
void check_exported(const scenario::Scenario& s, const runtime::TrainingSetup& setup, const std::string& where,
                    bool pipeline) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  if ((setup.mode != runtime::RunMode::TimingDataParallel && !pipeline) || plan.zero > 0) {
    refuse_input(where, "training.parallelism",
                 "Chakra traces are written for timing-only data-parallel and pipeline runs (a profile on every "
                 "worker; no tensor, expert or context parallelism, no ZeRO)",
                 "give a scenario whose model is a profile:..., split over replicas and pipeline stages alone");
  }
  if (pipeline && !chakra_pipeline_schedule(plan.schedule)) {
    refuse_input(
        where, "training.parallelism.schedule",
        fmt::format("a pipeline's traces are written under gpipe or 1f1b, not {}", scenario::to_string(plan.schedule)),
        "set training.parallelism.schedule: 1f1b (or gpipe)");
  }
  if (s.cluster.workers > kMaxChakraRanks) {
    refuse_input(where, "cluster.workers",
                 fmt::format("{} workers would be {} files, more than the {} written at most", s.cluster.workers,
                             s.cluster.workers, kMaxChakraRanks),
                 "export a smaller cluster: a data-parallel run's ranks all do the same work");
  }
}

}  // namespace

std::string chakra_export_command(const ChakraExportOptions& options, const checks::Registries& registries) {
  const scenario::ScenarioFormat format(registries);
  const scenario::Scenario s = scenario::read_scenario_file(format, options.scenario);
  checks::check_scenario(s, registries);
  const runtime::TrainingSetup setup = checks::resolve_scenario(s, registries);
  const bool pipeline =
      setup.mode == runtime::RunMode::TimingModelParallel && chakra_pipeline_only(s.training.parallelism);
  check_exported(s, setup, options.scenario.string(), pipeline);
  const int workers = s.cluster.workers;
  const std::filesystem::path groups_file = options.prefix.string() + ".comm_groups.json";
  for (int rank = 0; rank < workers; ++rank) {
    const std::filesystem::path file = traces::chakra_rank_file(options.prefix, rank);
    std::error_code error;
    if (std::filesystem::exists(file, error) && std::filesystem::equivalent(file, options.scenario, error)) {
      refuse_input("dtsim chakra", "--output",
                   fmt::format("{} is the scenario: the trace would replace it", file.string()), "give another prefix");
    }
    core::refuse_unless_regular_file(file);
  }
  nlohmann::json groups = nlohmann::json::object();
  const EncodedTraces traces = pipeline ? pipeline_traces(s, setup, groups) : data_parallel_traces(s, setup);
  if (!groups.empty()) core::refuse_unless_regular_file(groups_file);
  if (!options.prefix.parent_path().empty()) std::filesystem::create_directories(options.prefix.parent_path());
  for (int rank = 0; rank < workers; ++rank) {
    core::write_file_atomically(traces::chakra_rank_file(options.prefix, rank),
                                traces.distinct[traces.of_rank[static_cast<std::size_t>(rank)]]);
  }
  if (!groups.empty()) core::write_file_atomically(groups_file, groups.dump() + "\n");
  return fmt::format("{} Chakra trace(s) written: {} to {}{}\n", workers,
                     traces::chakra_rank_file(options.prefix, 0).string(),
                     traces::chakra_rank_file(options.prefix, workers - 1).string(),
                     groups.empty() ? "" : fmt::format("; the stages' replica groups in {}", groups_file.string()));
}

}  // namespace dtsim::app
