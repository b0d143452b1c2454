#pragma once
// Everything a training run needs, resolved from a scenario: the plug-ins looked up, the data made.

#include "models/batch_schedule.hpp"
#include "models/dataset.hpp"
#include "models/trainable_model.hpp"
#include "sim/comm/collective_algorithm.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/sync/sync_strategy.hpp"
#include "sim/topology/topology_graph.hpp"

#include <functional>
#include <memory>

namespace dtsim::runtime {

struct TrainingSetup {
  topology::TopologyGraph graph;
  std::unique_ptr<models::TrainableModel> model;
  std::unique_ptr<sync::SyncStrategy> sync;
  /// The allreduce algorithm (allreduce architecture only; null otherwise).
  std::unique_ptr<comm::CollectiveAlgorithm> allreduce;
  models::SplitDataset data;
  models::BatchSchedule schedule;
  std::int64_t total_iterations = 0;
  std::int64_t evaluate_every = 0;
  /// Record every on-arrival update's measured learning-rate factor (RunRecord::applied); for tests.
  bool record_updates = false;
};

/// Called after each iteration of worker 0, for progress display.
struct Progress {
  std::int64_t iteration = 0;
  std::int64_t total_iterations = 0;
  double sim_time_s = 0.0;
};
using ProgressCallback = std::function<void(const Progress&)>;

}  // namespace dtsim::runtime
