#include "sim/app/chakra_replay.hpp"

#include "sim/app/calibration_search.hpp"
#include "sim/app/chakra_pipeline.hpp"
#include "sim/app/iteration_simulation.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include <fmt/format.h>

#include <map>

namespace dtsim::app {
namespace {

/// Scenario `s` with every device timing the replayed layers by their operations alone: no memory roofline,
/// no overhead per layer (the trace's times hold them).
scenario::Scenario replaying(scenario::Scenario s) {
  const auto plain = [](scenario::DeviceProfile& d) {
    d.memory_bandwidth.reset();
    d.layer_overhead_s = 0.0;
  };
  each_device(s, plain);
  return s;
}

/// Refuses a pipeline job's trace (one that sends or receives) replayed as a data-parallel one.
void refuse_messages(const traces::ChakraTrace& trace, const std::string& source) {
  for (const traces::ChakraNode& node : trace.nodes) {
    if (node.type == traces::ChakraNodeType::send || node.type == traces::ChakraNodeType::receive) {
      refuse_input(source, "nodes",
                   fmt::format("node {} ('{}') sends or receives: the trace is of a pipeline job", node.id,
                               node.name.substr(0, 40)),
                   "replay it on the scenario of its pipeline (training.parallelism.pipeline, microbatches, schedule)");
    }
  }
}

}  // namespace

ChakraPass chakra_pass_of(std::string name) {
  ChakraPass out;
  if (const auto mb = name.rfind(".mb"); mb != std::string::npos && mb + 3 < name.size() && mb + 3 + 6 >= name.size() &&
                                         name.find_first_not_of("0123456789", mb + 3) == std::string::npos) {
    out.microbatch = std::stoi(name.substr(mb + 3));
    name.resize(mb);
  }
  const auto ends_with = [&](const char* tail) {
    const std::string t(tail);
    return name.size() > t.size() && name.compare(name.size() - t.size(), t.size(), t) == 0;
  };
  out.backward = ends_with(".bwd");
  if (out.backward || ends_with(".fwd")) name.resize(name.size() - 4);
  out.layer = std::move(name);
  return out;
}

models::ModelProfile replayed_layers(const traces::ChakraTrace& trace, const std::string& source,
                                     const scenario::DeviceProfile& device, double batch, int gradient_bytes) {
  const double rate = compute::sustained_rate(device).value();
  models::ModelProfile out{"chakra", "a replayed Chakra trace", "one traced sample", {}, {}};
  std::map<std::string, std::size_t> layer_of_name;
  std::map<std::uint64_t, std::size_t> layer_of_node;
  for (const traces::ChakraNode& node : trace.nodes) {
    if (node.type == traces::ChakraNodeType::compute) {
      const ChakraPass pass = chakra_pass_of(node.name);
      if (pass.layer == "optimizer.step") continue;  // the scenario's optimizer steps
      auto [at, added] = layer_of_name.emplace(pass.layer, out.layers.size());
      if (added) out.layers.push_back(models::whole_layer(pass.layer, 0.0, 0.0, 0.0, 0.0));
      layer_of_node[node.id] = at->second;
      // The scenario runs its micro-batches: the first one's passes are the layer's.
      if (pass.microbatch != 0) continue;
      const double operations =
          node.num_ops ? static_cast<double>(*node.num_ops) : static_cast<double>(node.duration_micros) * 1e-6 * rate;
      models::LayerProfile& layer = out.layers[at->second];
      (pass.backward ? layer.backward_flops : layer.forward_flops) += operations / batch;
    } else if (node.type == traces::ChakraNodeType::collective) {
      if (!node.comm_type || *node.comm_type != static_cast<int>(traces::ChakraCollective::all_reduce)) {
        refuse_input(
            source, "comm_type",
            fmt::format("node {} ('{}') is a collective other than an allreduce", node.id, node.name.substr(0, 40)),
            "a data-parallel job's trace: compute nodes and the allreduces of their gradients");
      }
      const auto after = node.data_deps.empty() ? layer_of_node.end() : layer_of_node.find(node.data_deps.front());
      if (after == layer_of_node.end() || !node.comm_size) continue;
      out.layers[after->second].parameters += static_cast<double>(*node.comm_size) / gradient_bytes;
    }
  }
  if (out.layers.empty())
    refuse_input(source, "nodes", "the trace has no compute node", "give rank 0's .et file of a training job");
  return out;
}

std::string chakra_replay_command(const ChakraReplayOptions& options, const checks::Registries& registries) {
  const scenario::ScenarioFormat format(registries);
  const scenario::Scenario s = replaying(scenario::read_scenario_file(format, options.scenario));
  checks::check_scenario(s, registries);
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  if (s.model.timing_only && plan.zero == 0 && chakra_pipeline_only(plan)) {
    return replay_pipeline(s, options.scenario, options.prefix, registries);
  }
  if (!s.model.timing_only || plan.is_model_parallel() || plan.zero > 0) {
    refuse_input(options.scenario.string(), "training.parallelism",
                 "a Chakra trace is replayed on a timing-only data-parallel or pipeline scenario (a profile; no "
                 "tensor, expert or context parallelism, no ZeRO)",
                 "give the scenario of the traced job's cluster and recipe, with any profile:... as its model");
  }
  const std::filesystem::path file = traces::chakra_rank_file(options.prefix, 0);
  const traces::ChakraTrace trace = traces::read_chakra_trace(file);
  refuse_messages(trace, file.string());
  const int microbatches = std::max(1, s.training.parallelism.microbatches);
  const double batch = static_cast<double>(s.training.batch_per_worker / microbatches);
  const models::ModelProfile layers =
      replayed_layers(trace, file.string(), s.cluster.device_of(0), batch, s.training.wire.gradients);
  const double seconds = simulate_iteration(s, registries, &layers);
  return fmt::format(
      "replayed {} ({} nodes) as {} layers of {:.6g} parameters on {} workers of {}: {:.9g} s an iteration\n",
      file.string(), trace.nodes.size(), layers.layers.size(), layers.parameters(), s.cluster.workers,
      options.scenario.filename().string(), seconds);
}

}  // namespace dtsim::app
