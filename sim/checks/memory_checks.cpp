#include "sim/checks/memory_checks.hpp"

#include "models/device_share.hpp"
#include "models/memory_footprint.hpp"
#include "models/pipeline_plan.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/parallel_axes.hpp"
#include "sim/scenario/parallel_layout.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dtsim::checks {

std::vector<metrics::DeviceMemory> device_memory(const scenario::Scenario& s, const models::ModelProfile& profile,
                                                 const Registries& registries, models::PassOrders* orders) {
  models::PassOrders own;
  models::PassOrders& order = orders != nullptr ? *orders : own;
  const scenario::OptimizerSpec& optimizer = s.training.optimizer;
  // The optimizer's state per parameter, from an instance with state for none.
  const int optimizer_values = registries.optimizers.find(optimizer.kind.value)
                                   .factory.make(optimizer.learning_rate, optimizer.parameters, 0)
                                   ->state_per_parameter();
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const bool pipelined = plan.pipeline > 1;
  const int chunks = pipelined ? models::chunks_per_device(plan.schedule, plan.virtual_stages) : 1;
  const std::vector<std::size_t> stage_layers = models::split_into_stages(
      profile, pipelined ? models::model_stages(plan.schedule, plan.pipeline, plan.virtual_stages) : 1, plan.stage_split);
  const auto microbatch = static_cast<std::size_t>(std::max(1, s.training.batch_per_worker / plan.microbatches));
  const models::PipelineSchedule schedule = plan.schedule;
  const models::DeviceShare share = scenario::device_share_of(s.training);
  // The routed experts' weights partitioned over the devices holding the same experts (sharing_replicas).
  const bool held_apart = scenario::experts_apart(plan);
  std::vector<metrics::DeviceMemory> out;
  // out's entry of each kind of device (a name and precision) and stage, found in constant time: a plan screens
  // thousands of ranks for each of its candidates.
  std::vector<const scenario::DeviceProfile*> kinds;
  std::vector<std::vector<int>> entry_of;  // by kind, by stage + 1 (0: unpipelined); -1 where none yet
  for (int rank = 0; rank < s.cluster.workers; ++rank) {
    const scenario::DeviceProfile& device = s.cluster.device_of(rank);
    const int stage = pipelined ? scenario::coordinates_of(plan, rank)[scenario::ParallelAxis::Pipeline] : -1;
    const auto same_kind = [&](const scenario::DeviceProfile* kind) {
      return kind->name == device.name && kind->precision == device.precision;
    };
    const auto kind = static_cast<std::size_t>(std::find_if(kinds.begin(), kinds.end(), same_kind) - kinds.begin());
    if (kind == kinds.size()) {
      kinds.push_back(&device);
      entry_of.emplace_back(static_cast<std::size_t>(plan.pipeline) + 1, -1);
    }
    int& entry = entry_of[kind][static_cast<std::size_t>(stage + 1)];
    if (entry >= 0) {
      ++out[static_cast<std::size_t>(entry)].workers;
      continue;
    }
    entry = static_cast<int>(out.size());
    // The device's chunks (one without interleaving or DualPipe), each a stage of the model (models::chunk_place).
    double parameters = 0.0;
    double experts = 0.0;  // of them, the routed experts' partitioned over their own replicas
    std::vector<double> chunk_activations;
    for (int c = 0; c < chunks; ++c) {
      const auto index = static_cast<std::size_t>(
          models::chunk_place(plan.schedule, plan.pipeline, plan.virtual_stages, std::max(stage, 0), c).stage);
      const models::ModelProfile layers =
          models::device_share(models::stage_profile(profile, stage_layers[index], stage_layers[index + 1]), share);
      parameters += layers.parameters();
      if (held_apart) {
        for (const models::LayerProfile& layer : layers.layers) experts += layer.routed() ? layer.parameters : 0.0;
      }
      chunk_activations.push_back(layers.peak_activation_bytes());
    }
    // The activations of the micro-batches in flight, per sample of a micro-batch. Without model parallelism
    // micro-batches accumulate gradients, each finished before the next: one is in flight.
    const int in_flight = plan.is_model_parallel() ? plan.microbatches : 1;
    const double activations_per_sample = models::peak_activations(
        order.of(schedule, plan.pipeline, std::max(stage, 0), in_flight, chunks,
                 scenario::expert_overlap_warmup(s.training)),
        chunk_activations);
    const std::size_t samples = microbatch;
    const models::MemoryFootprint need = models::memory_footprint(
        {.parameters = parameters,
         .activation_bytes_per_sample = activations_per_sample,
         .samples = samples,
         .data_parallel = scenario::sharing_replicas(plan, scenario::Weights::Dense),
         .zero_stage = s.training.parallelism.zero,
         .mixed_precision = scenario::reduced(device.precision),
         // A timing-only run's gradient buffer holds what its gradients are reduced in.
         .gradient_bytes = s.model.timing_only && scenario::reduced(device.precision)
                               ? static_cast<double>(s.training.wire.gradients)
                               : 0.0,
         .optimizer_values = optimizer_values,
         .expert_parameters = experts,
         .expert_data_parallel = scenario::sharing_replicas(plan, scenario::Weights::Experts)});
    out.push_back({.device = device.name,
                   .precision = std::string(scenario::to_string(device.precision)),
                   .workers = 1,
                   .stage = stage,
                   .parameters = need.parameters,
                   .gradients = need.gradients,
                   .optimizer = need.optimizer,
                   .activations = need.activations,
                   .capacity = device.memory ? std::optional<double>(device.memory->value()) : std::nullopt});
  }
  return out;
}

void check_memory(const scenario::Scenario& s, const std::vector<metrics::DeviceMemory>& memory,
                  core::DiagnosticSink& sink) {
  if (!s.training.check_memory) return;
  const core::ConfigNode* device_key = core::find_dotted(s.resolved, "cluster.device");
  const core::SourcePosition at = device_key != nullptr ? device_key->where : s.training.batch_at;
  const auto size = [](double bytes) { return core::format_size(core::Bytes(bytes)); };
  const std::string batch_key = s.training.batch_declared_global ? "training.batch.global" : "training.batch.per_worker";
  for (const metrics::DeviceMemory& m : memory) {
    if (m.fits()) continue;
    sink.error(at, "cluster.device",
               fmt::format("a worker{} needs {} on its {} ({} parameters, {} gradients, {} optimizer state, {} "
                           "activations), and it holds {}",
                           m.stage >= 0 ? fmt::format(" of pipeline stage {}", m.stage) : "", size(m.total()),
                           m.device.empty() ? "device" : m.device, size(m.parameters),
                           size(m.gradients), size(m.optimizer), size(m.activations), size(*m.capacity)),
               m.stage >= 0
                   ? fmt::format("split the model into more pipeline stages, or the batch into more micro-batches, "
                                 "lower {}, or set training.check_memory: false to simulate anyway", batch_key)
               : s.training.parallelism.zero < 3
                   ? fmt::format("partition the state with training.parallelism.zero (1 to 3), lower {}, or set "
                                 "training.check_memory: false to simulate anyway", batch_key)
                   : fmt::format("lower {}, use devices with more memory, or set training.check_memory: false to "
                                 "simulate anyway", batch_key));
  }
}

}  // namespace dtsim::checks
