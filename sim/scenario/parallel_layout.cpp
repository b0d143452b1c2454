#include "sim/scenario/parallel_layout.hpp"

#include "sim/scenario/expert_grid.hpp"
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
  if (on_expert_grid(plan) && axis == ParallelAxis::Expert) return expert_grid_group(plan, rank, ExpertGridAxis::Expert);
  if (on_expert_grid(plan) && axis == ParallelAxis::ExpertTensor) {
    return expert_grid_group(plan, rank, ExpertGridAxis::ExpertTensor);
  }
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
  const std::vector<ParallelAxis> axes = sharing_axes(plan, Weights::Dense);
  std::vector<int> sizes;
  for (const ParallelAxis axis : axes) sizes.push_back(degree_of(plan, axis));
  const int replicas = sharing_replicas(plan, Weights::Dense);
  std::vector<int> out;
  for (int replica = 0; replica < replicas; ++replica) {
    // The replica index in mixed radix, innermost axis first; the outermost takes what is left.
    int rest = replica;
    for (std::size_t i = 0; i < axes.size(); ++i) {
      at[axes[i]] = i + 1 == axes.size() ? rest : rest % sizes[i];
      rest /= sizes[i];
    }
    out.push_back(rank_of(plan, at));
  }
  return out;
}

int replica_index(const ParallelismSpec& plan, const ParallelCoordinates& at) {
  const std::vector<ParallelAxis> axes = sharing_axes(plan, Weights::Dense);
  int out = 0;
  for (auto axis = axes.rbegin(); axis != axes.rend(); ++axis) out = out * degree_of(plan, *axis) + at[*axis];
  return out;
}

std::vector<int> group_across(const ParallelismSpec& plan, int rank, std::span<const ParallelAxis> axes) {
  ParallelCoordinates at = coordinates_of(plan, rank);
  int size = 1;
  for (const ParallelAxis axis : axes) size *= degree_of(plan, axis);
  std::vector<int> out;
  for (int member = 0; member < size; ++member) {
    int rest = member;
    for (const ParallelAxis axis : axes) {
      at[axis] = rest % degree_of(plan, axis);
      rest /= degree_of(plan, axis);
    }
    out.push_back(rank_of(plan, at));
  }
  return out;
}

int index_across(const ParallelismSpec& plan, const ParallelCoordinates& at, std::span<const ParallelAxis> axes) {
  int out = 0;
  for (auto axis = axes.rbegin(); axis != axes.rend(); ++axis) out = out * degree_of(plan, *axis) + at[*axis];
  return out;
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
  const ParallelismSpec& plan = training.parallelism;
  // Each part of the layers divided by the degrees of the axes that split it.
  const auto divisor = [&](Splits what) {
    int out = 1;
    for (const AxisEntry& entry : parallel_axes()) {
      if (has(splits_under(entry, plan), what)) out *= declared_degree(plan, entry.axis);
    }
    return out;
  };
  return {.tensor = divisor(Splits::DenseMatrices),
          .sequence_parallel = plan.sequence_parallel,
          .recomputation = training.recomputation,
          .recomputed = training.recompute_modules,
          .expert = divisor(Splits::Experts),
          .context = divisor(Splits::Sequence),
          .expert_matrices = divisor(Splits::ExpertMatrices),
          .expert_grid = plan.expert_tensor_declared};
}

int expert_overlap_warmup(const TrainingSpec& training) {
  return training.overlap_expert_exchange && training.parallelism.schedule == models::PipelineSchedule::Interleaved ? 1 : 0;
}

}  // namespace dtsim::scenario
