#pragma once
// The routed experts' grid: where a device sits among the devices that exchange tokens (its expert group), split an
// expert's matrices (its expert-tensor group) and hold the same experts (its expert-data group).
//
// Without expert_tensor declared, the expert groups are carved out of the data-parallel replicas, a grid axis of
// their own (parallel_axes.hpp). With it declared, the experts have Megatron-Core's own grid, "parallel folding":
// expert-tensor x expert x expert-data laid over a pipeline stage's tensor x context x data devices in the order of
// their ranks, expert-tensor innermost, so that an expert group may span a tensor group's devices and be larger
// than the data-parallel degree (expert 32 beside tensor 2 x data 16).

#include "sim/scenario/parallel_layout.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace dtsim::scenario {

/// The three groups of the experts' grid.
enum class ExpertGridAxis {
  ExpertTensor,  ///< the devices splitting each routed expert's matrices
  Expert,        ///< the devices exchanging tokens, each holding its share of the experts
  ExpertData,    ///< the devices holding the same experts, over which their gradients are reduced
};

/// A device's rank in each group of the experts' grid.
struct ExpertPlace {
  int expert_tensor = 0;
  int expert = 0;
  int expert_data = 0;
  bool operator==(const ExpertPlace&) const = default;
};

/// Whether the routed experts have their own grid laid over a stage's devices (expert_tensor declared).
[[nodiscard]] bool on_expert_grid(const ParallelismSpec& plan);

/// The devices of one pipeline stage: tensor x context x data.
[[nodiscard]] int stage_devices(const ParallelismSpec& plan);
/// `at`'s index among its stage's devices, in the order of their ranks (the placement's mixed radix without the
/// pipeline axis).
[[nodiscard]] int stage_index(const ParallelismSpec& plan, const ParallelCoordinates& at);

/// `at`'s place on the experts' grid; without one, its expert-tensor and expert coordinates and its index among the
/// replicas holding the same experts.
[[nodiscard]] ExpertPlace expert_place(const ParallelismSpec& plan, const ParallelCoordinates& at);
/// The size of `axis`'s groups: expert_tensor, expert, and the devices of a stage holding the same experts.
[[nodiscard]] int expert_grid_degree(const ParallelismSpec& plan, ExpertGridAxis axis);
/// `at`'s rank along `axis` (its ExpertPlace's).
[[nodiscard]] int expert_grid_rank(const ExpertPlace& place, ExpertGridAxis axis);

/// On the experts' own grid, the ranks of `rank`'s group along `axis`, in the order of that rank.
[[nodiscard]] std::vector<int> expert_grid_group(const ParallelismSpec& plan, int rank, ExpertGridAxis axis);
/// On the experts' own grid, the name of `at`'s group along `axis`: `label`, its stage, then its ranks along the
/// two other axes, outermost first ("experts/<stage>/<expert-data rank>/<expert-tensor rank>").
[[nodiscard]] std::string expert_grid_name(std::string_view label, const ParallelismSpec& plan,
                                           const ParallelCoordinates& at, ExpertGridAxis axis);

/// On the experts' own grid, whether each group of devices holding the same experts (expert-data group) lies within
/// one tensor rank's devices, and so among the replicas of one share of the dense layers.
[[nodiscard]] bool holders_share_tensor_rank(const ParallelismSpec& plan);

/// Which of a stage's expert groups `at` belongs to, numbered from 0 (the routing draws' group): without the experts'
/// own grid, its replica index among those of its tensor rank (a tensor group's devices route the same tokens); with
/// it, by its expert-data and expert-tensor ranks (each device routes its own tokens).
[[nodiscard]] int expert_group_of(const ParallelismSpec& plan, const ParallelCoordinates& at);
/// How many expert groups of a stage route tokens of their own: expert_group_of's range.
[[nodiscard]] int expert_groups_routing(const ParallelismSpec& plan);

}  // namespace dtsim::scenario
