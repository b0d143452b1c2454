#include "sim/scenario/parallel_layout.hpp"

#include "sim/scenario/parallel_axes.hpp"

#include <algorithm>

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

std::vector<int> replica_group(const ParallelismSpec& plan, int rank) {
  ParallelCoordinates at = coordinates_of(plan, rank);
  std::vector<int> out;
  for (int replica = 0; replica < plan.data * plan.context; ++replica) {
    at[ParallelAxis::Context] = replica % plan.context;
    at[ParallelAxis::Expert] = replica / plan.context % plan.expert;
    at[ParallelAxis::Data] = replica / plan.context / plan.expert;
    out.push_back(rank_of(plan, at));
  }
  return out;
}

int replica_index(const ParallelismSpec& plan, const ParallelCoordinates& at) {
  return at[ParallelAxis::Context] + plan.context * (at[ParallelAxis::Expert] + plan.expert * at[ParallelAxis::Data]);
}

std::string group_name(std::string_view label, const ParallelCoordinates& at, std::span<const ParallelAxis> axes) {
  std::string out(label);
  const std::vector<AxisEntry>& table = parallel_axes();
  for (auto other = table.rbegin(); other != table.rend(); ++other) {
    if (std::find(axes.begin(), axes.end(), other->axis) == axes.end()) out += "/" + std::to_string(at[other->axis]);
  }
  return out;
}

std::string group_name(std::string_view label, const ParallelCoordinates& at, ParallelAxis axis) {
  return group_name(label, at, std::span<const ParallelAxis>(&axis, 1));
}

models::DeviceShare device_share_of(const TrainingSpec& training) {
  return {.tensor = training.parallelism.tensor,
          .sequence_parallel = training.parallelism.sequence_parallel,
          .recomputation = training.recomputation,
          .expert = training.parallelism.expert,
          .context = training.parallelism.context};
}

}  // namespace dtsim::scenario
