#pragma once
// Everything a training run needs, resolved from a scenario: the plug-ins looked up, the data made.

#include "models/batch_schedule.hpp"
#include "models/dataset.hpp"
#include "models/model_profile.hpp"
#include "models/optimizer.hpp"
#include "models/trainable_model.hpp"
#include "sim/comm/collective_algorithm.hpp"
#include "sim/metrics/run_record.hpp"
#include "sim/runtime/setup/host_layer_tables.hpp"
#include "sim/runtime/setup/run_collectives.hpp"
#include "sim/runtime/setup/run_mode.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/sync/sync_strategy.hpp"
#include "sim/topology/topology_graph.hpp"

#include <functional>
#include <memory>
#include <variant>
#include <vector>

namespace dtsim::runtime {

struct TrainingSetup {
  /// What the run is (run_mode.hpp): the runtime dispatches on it.
  RunMode mode = RunMode::DataParallel;
  topology::TopologyGraph graph;
  /// What the workers compute: a model trained for real, or (timing-only modes) a layer table, which has no
  /// values (compute time and message sizes only).
  std::variant<std::unique_ptr<models::TrainableModel>, models::ModelProfile> workload;
  std::unique_ptr<sync::SyncStrategy> sync;
  /// The scenario's optimizer, configured, with state for `size` parameters: each holder of parameters
  /// makes its own.
  std::function<std::unique_ptr<models::Optimizer>(std::size_t size)> make_optimizer;
  /// The allreduce and hybrid architectures' collectives: the allreduce, and under ZeRO
  /// (`training.parallelism.zero` 1 to 3: gradients reduce-scattered, parameters allgathered) or sequence
  /// parallelism the reduce-scatter and allgather, each by the scenario's algorithm.
  RunCollectives collectives;
  int zero_stage = 0;
  /// Pipeline runs: the first layer of each stage of the profile, then the layer count; empty otherwise.
  std::vector<std::size_t> stage_layers;
  /// Timing-only runs: what a worker holds, per kind of device.
  std::vector<metrics::DeviceMemory> memory;
  models::SplitDataset data;
  models::BatchSchedule schedule;
  std::int64_t total_iterations = 0;
  std::int64_t evaluate_every = 0;
  /// A timing-only run with a budget (training.stop.tokens or samples): the whole run's iterations, of which
  /// total_iterations are simulated; 0 without a budget.
  std::int64_t projected_iterations = 0;
  /// A line for the user when `training.backend: auto` computes on the CPU although the model could use CUDA.
  std::string backend_notice;
  /// Timing-only data-parallel runs: gradients allreduced in buckets of `bucket_bytes` (at their wire
  /// precision) while the backward pass goes on.
  bool overlap = false;
  double bucket_bytes = 0.0;
  /// Timing-only runs of equal workers simulate identical ring rounds as one transfer; tests turn it off to
  /// compare with the rounds one by one.
  bool phase_shortcut = true;
  /// Runs trained for real compute their collectives' values in memory apart from the messages, which are timed
  /// without values (comm/values_apart.hpp); `dtsim run --values-by-message` and tests turn it off to compare with
  /// every value sent by message.
  bool values_apart = true;
  /// Threads for the workers' real math (work_pool.hpp); 0: the machine's cores. 1 keeps it on the simulation's
  /// thread. The results are the same whatever the number.
  int threads = 0;
  /// Analytical runs whose ranks behave alike simulate worker 0 for all (see mirrored_ranks.hpp); `dtsim run
  /// --every-rank` and tests turn it off to compare with every rank simulated.
  bool mirror_ranks = true;
  /// Timing-only data-parallel workers' layer tables, one per kind of device.
  HostLayerTables layer_tables{};

  /// The model trained for real; a logic error in the timing-only modes.
  [[nodiscard]] const models::TrainableModel& model() const { return *std::get<std::unique_ptr<models::TrainableModel>>(workload); }
  /// The layer table; a logic error in the real-math modes.
  [[nodiscard]] const models::ModelProfile& profile() const { return std::get<models::ModelProfile>(workload); }
};

/// Called after each iteration of worker 0, for progress display.
struct Progress {
  std::int64_t iteration = 0;
  std::int64_t total_iterations = 0;
  double sim_time_s = 0.0;
};
using ProgressCallback = std::function<void(const Progress&)>;

}  // namespace dtsim::runtime
