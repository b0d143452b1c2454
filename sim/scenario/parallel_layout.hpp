#pragma once
// Where each worker rank sits in the grid of the plan's axes (parallel_axes.hpp), by
// `training.parallelism.placement`: the innermost degree varies fastest over consecutive ranks. Computed for
// any list of axes.

#include "models/device_share.hpp"
#include "models/pipeline_plan.hpp"
#include "sim/scenario/scenario.hpp"

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::scenario {

/// A rank's coordinate along each axis (the pipeline's: its stage; the data axis's: its replica).
class ParallelCoordinates {
 public:
  [[nodiscard]] int operator[](ParallelAxis axis) const { return at_[static_cast<std::size_t>(axis)]; }
  [[nodiscard]] int& operator[](ParallelAxis axis) { return at_[static_cast<std::size_t>(axis)]; }
  bool operator==(const ParallelCoordinates&) const = default;

 private:
  std::array<int, kParallelAxes> at_{};
};

ParallelCoordinates coordinates_of(const ParallelismSpec& plan, int rank);
int rank_of(const ParallelismSpec& plan, const ParallelCoordinates& at);

/// The ranks that differ from `rank` only along `axis`, in the order of that coordinate: its tensor group,
/// its pipeline (stages), or its stage's replicas; on the experts' own grid, its expert or expert-tensor group
/// there (expert_grid.hpp).
std::vector<int> group_along(const ParallelismSpec& plan, int rank, ParallelAxis axis);

/// The ranks that differ from `rank` only along `axes` (innermost first), in the mixed radix of those coordinates,
/// the innermost varying fastest; along one axis, group_along.
std::vector<int> group_across(const ParallelismSpec& plan, int rank, std::span<const ParallelAxis> axes);
/// `at`'s index in its group_across `axes`.
int index_across(const ParallelismSpec& plan, const ParallelCoordinates& at, std::span<const ParallelAxis> axes);

/// The data-parallel group through `rank`: the ranks that differ from it only along the axes whose groups hold
/// the dense weights alike (sharing_axes: context, expert_tensor, expert and data; every replica of its share of the
/// model, over which the dense parameters' gradients are reduced, a context group's devices among them as
/// Megatron-LM reduces over data x context), in the order of their replica index, context + context degree x
/// (expert_tensor + expert_tensor degree x (expert + expert degree x data coordinate)). Without context, expert or
/// expert tensor parallelism, group_along the data axis.
std::vector<int> replica_group(const ParallelismSpec& plan, int rank);
/// `at`'s index in its replica_group.
int replica_index(const ParallelismSpec& plan, const ParallelCoordinates& at);

/// The name of the group along `axes` through `at`: `label`, then the other coordinates, outermost axis first.
std::string group_name(std::string_view label, const ParallelCoordinates& at, std::span<const ParallelAxis> axes);
/// The name of the group along `axis` through `at`, its channels' prefix: `label` (the axis's groups' name,
/// or another for a second group along the same axis), then the other coordinates, outermost axis first
/// ("pipeline/<replica>/<tensor rank>"), so that every group of a run has its own.
std::string group_name(std::string_view label, const ParallelCoordinates& at, ParallelAxis axis);

/// How one device of `training`'s tensor groups runs its layers: the degree, sequence parallelism and
/// recomputation, and the divisors of its routed experts (on their own grid where expert_tensor is declared).
models::DeviceShare device_share_of(const TrainingSpec& training);

/// The forward passes each device of an interleaved pipeline runs before its first backward pass beyond its
/// schedule's: 1 with `training.overlap_expert_exchange` (Megatron-Core adds one, so that the backward pass each
/// forward pass runs beside has its gradient), else 0.
int expert_overlap_warmup(const TrainingSpec& training);

}  // namespace dtsim::scenario
