#pragma once
// Where each worker rank sits in the data x tensor x pipeline grid, by `training.parallelism.placement`:
// the innermost degree varies fastest over consecutive ranks.

#include "models/device_share.hpp"
#include "models/pipeline_plan.hpp"
#include "sim/scenario/scenario.hpp"

#include <vector>

namespace dtsim::scenario {

struct ParallelCoordinates {
  int tensor = 0;
  int pipeline = 0;  ///< the stage
  int data = 0;      ///< the replica

  bool operator==(const ParallelCoordinates&) const = default;
};

ParallelCoordinates coordinates_of(const ParallelismSpec& plan, int rank);
int rank_of(const ParallelismSpec& plan, const ParallelCoordinates& at);

/// The ranks that differ from `rank` only along `axis`, in the order of that coordinate: its tensor group,
/// its pipeline (stages), or its stage's replicas.
std::vector<int> group_along(const ParallelismSpec& plan, int rank, ParallelAxis axis);

/// How one device of `training`'s tensor groups runs its layers: the degree, sequence parallelism and
/// recomputation.
models::DeviceShare device_share_of(const TrainingSpec& training);

/// The schedule `plan.schedule` names.
models::PipelineSchedule schedule_of(const ParallelismSpec& plan);

}  // namespace dtsim::scenario
