#include "sim/scenario/parallel_layout.hpp"

#include "sim/scenario/parallel_axes.hpp"

namespace dtsim::scenario {
ParallelCoordinates coordinates_of(const ParallelismSpec& plan, int rank) {
  ParallelCoordinates out;
  for (const ParallelAxis axis : plan.placement) {
    const int size = degree_of(plan, axis);
    out[axis] = rank % size;
    rank /= size;
  }
  return out;
}

int rank_of(const ParallelismSpec& plan, const ParallelCoordinates& at) {
  int rank = 0;
  for (auto axis = plan.placement.rbegin(); axis != plan.placement.rend(); ++axis) {
    rank = rank * degree_of(plan, *axis) + at[*axis];
  }
  return rank;
}

std::vector<int> group_along(const ParallelismSpec& plan, int rank, ParallelAxis axis) {
  ParallelCoordinates at = coordinates_of(plan, rank);
  std::vector<int> out;
  for (int i = 0; i < degree_of(plan, axis); ++i) {
    at[axis] = i;
    out.push_back(rank_of(plan, at));
  }
  return out;
}

std::string group_name(std::string_view label, const ParallelCoordinates& at, ParallelAxis axis) {
  std::string out(label);
  const std::vector<AxisEntry>& axes = parallel_axes();
  for (auto other = axes.rbegin(); other != axes.rend(); ++other) {
    if (other->axis != axis) out += "/" + std::to_string(at[other->axis]);
  }
  return out;
}

models::DeviceShare device_share_of(const TrainingSpec& training) {
  const std::string& mode = training.recomputation;
  return {.tensor = training.parallelism.tensor,
          .sequence_parallel = training.parallelism.sequence_parallel,
          .recomputation = mode == "full"        ? models::Recomputation::Full
                           : mode == "selective" ? models::Recomputation::Selective
                                                 : models::Recomputation::None};
}

models::PipelineSchedule schedule_of(const ParallelismSpec& plan) {
  if (plan.schedule == "gpipe") return models::PipelineSchedule::GPipe;
  if (plan.schedule == "interleaved_1f1b") return models::PipelineSchedule::Interleaved;
  if (plan.schedule == "zero_bubble") return models::PipelineSchedule::ZeroBubble;
  return models::PipelineSchedule::OneForwardOneBackward;
}

}  // namespace dtsim::scenario
