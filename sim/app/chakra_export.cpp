#include "sim/app/chakra_export.hpp"

#include "models/device_share.hpp"
#include "sim/app/calibration_search.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/scenario/parallel_layout.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "sim/traces/chakra_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dtsim::app {
namespace {

/// Builds one rank's nodes, each depending on the one before it on the rank's compute stream.
class RankTrace {
 public:
  explicit RankTrace(double rate) : rate_(rate) {}

  /// A compute node of `flops` executed at the device's sustained rate.
  std::uint64_t compute(const std::string& name, double flops, std::vector<std::uint64_t> after) {
    traces::ChakraNode n = traces::chakra_node(next_id(), name, traces::ChakraNodeType::compute, std::move(after));
    n.duration_micros = static_cast<std::uint64_t>(std::llround(flops / rate_ * 1e6));
    n.num_ops = std::llround(flops);
    trace_.nodes.push_back(std::move(n));
    return trace_.nodes.back().id;
  }

  /// An allreduce of `bytes` over every rank once `after` is done.
  std::uint64_t allreduce(const std::string& name, double bytes, std::uint64_t after) {
    traces::ChakraNode n = traces::chakra_node(next_id(), name, traces::ChakraNodeType::collective, {after});
    n.comm_type = static_cast<int>(traces::ChakraCollective::all_reduce);
    n.comm_size = std::llround(bytes);
    trace_.nodes.push_back(std::move(n));
    return trace_.nodes.back().id;
  }

  [[nodiscard]] const traces::ChakraTrace& trace() const { return trace_; }

 private:
  std::uint64_t next_id() { return static_cast<std::uint64_t>(trace_.nodes.size()); }
  double rate_;
  traces::ChakraTrace trace_;
};

/// One iteration of a data-parallel rank: every micro-batch's forward and backward passes, the last
/// backward pass handing each layer's gradients to an allreduce as it finishes, the optimizer after all.
traces::ChakraTrace rank_trace(const models::ModelProfile& timed, double rate, int microbatches, int gradient_bytes,
                               double optimizer_flops) {
  RankTrace out(rate);
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

}  // namespace

std::string chakra_export_command(const ChakraExportOptions& options, const checks::Registries& registries) {
  const scenario::ScenarioFormat format(registries);
  const scenario::Scenario s = scenario::read_scenario_file(format, options.scenario);
  checks::check_scenario(s, registries);
  const runtime::TrainingSetup setup = checks::resolve_scenario(s, registries);
  const std::string where = options.scenario.string();
  if (setup.mode != runtime::RunMode::TimingDataParallel || setup.zero_stage > 0) {
    refuse_input(
        where, "training.parallelism",
        "Chakra traces are written for timing-only data-parallel runs (a profile on every worker, no ZeRO)",
        "give a scenario whose model is a profile:... without tensor, pipeline, expert or context parallelism");
  }
  const int workers = s.cluster.workers;
  if (workers > kMaxChakraRanks) {
    refuse_input(where, "cluster.workers",
                 fmt::format("{} workers would be {} files, more than the {} written at most", workers, workers,
                             kMaxChakraRanks),
                 "export a smaller cluster: a data-parallel run's ranks all do the same work");
  }
  // A data-parallel run's ranks on one kind of device do the same work: each kind's trace is built once.
  const int microbatches = std::max(1, s.training.parallelism.microbatches);
  const double batch = static_cast<double>(s.training.batch_per_worker / microbatches);
  const models::ModelProfile share = models::device_share(setup.profile(), scenario::device_share_of(s.training));
  std::vector<std::pair<scenario::DeviceProfile, std::string>> kinds;
  std::vector<std::size_t> kind_of(static_cast<std::size_t>(workers));
  for (int rank = 0; rank < workers; ++rank) {
    const std::filesystem::path file = traces::chakra_rank_file(options.prefix, rank);
    std::error_code error;
    if (std::filesystem::exists(file, error) && std::filesystem::equivalent(file, options.scenario, error)) {
      refuse_input("dtsim chakra", "--output",
                   fmt::format("{} is the scenario: the trace would replace it", file.string()), "give another prefix");
    }
    core::refuse_unless_regular_file(file);
    const scenario::DeviceProfile& device = s.cluster.device_of(rank);
    const auto known = std::find_if(kinds.begin(), kinds.end(), [&](const auto& kind) { return kind.first == device; });
    kind_of[static_cast<std::size_t>(rank)] = static_cast<std::size_t>(known - kinds.begin());
    if (known != kinds.end()) continue;
    const models::ModelProfile timed = compute::host_flops(share, batch, device);
    const auto parameters = static_cast<std::size_t>(std::llround(timed.parameters()));
    kinds.emplace_back(device, traces::encode_chakra_trace(rank_trace(timed, compute::sustained_rate(device).value(),
                                                                      microbatches, s.training.wire.gradients,
                                                                      setup.make_optimizer(0)->flops(parameters))));
  }
  if (!options.prefix.parent_path().empty()) std::filesystem::create_directories(options.prefix.parent_path());
  for (int rank = 0; rank < workers; ++rank) {
    core::write_file_atomically(traces::chakra_rank_file(options.prefix, rank),
                                kinds[kind_of[static_cast<std::size_t>(rank)]].second);
  }
  return fmt::format("{} Chakra trace(s) written: {} to {}\n", workers,
                     traces::chakra_rank_file(options.prefix, 0).string(),
                     traces::chakra_rank_file(options.prefix, workers - 1).string());
}

}  // namespace dtsim::app
