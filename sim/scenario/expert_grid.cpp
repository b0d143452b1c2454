#include "sim/scenario/expert_grid.hpp"

#include "sim/scenario/parallel_axes.hpp"

#include <stdexcept>

namespace dtsim::scenario {
namespace {

/// The coordinates of the device at `index` among the devices of `at`'s stage.
ParallelCoordinates at_stage_index(const ParallelismSpec& plan, ParallelCoordinates at, int index) {
  for (const ParallelAxis axis : plan.placement) {
    if (axis == ParallelAxis::Pipeline) continue;
    const int size = degree_of(plan, axis);
    at[axis] = index % size;
    index /= size;
  }
  return at;
}

/// The index among a stage's devices of the device at `place` on the experts' grid.
int stage_index_of(const ParallelismSpec& plan, const ExpertPlace& place) {
  return place.expert_tensor + plan.expert_tensor * (place.expert + plan.expert * place.expert_data);
}

void set_rank(ExpertPlace& place, ExpertGridAxis axis, int rank) {
  switch (axis) {
    case ExpertGridAxis::ExpertTensor: place.expert_tensor = rank; return;
    case ExpertGridAxis::Expert: place.expert = rank; return;
    case ExpertGridAxis::ExpertData: place.expert_data = rank; return;
  }
}

}  // namespace

bool on_expert_grid(const ParallelismSpec& plan) { return plan.expert_tensor_declared; }

int stage_devices(const ParallelismSpec& plan) { return plan.tensor * plan.context * plan.data; }

int stage_index(const ParallelismSpec& plan, const ParallelCoordinates& at) {
  int out = 0;
  for (auto axis = plan.placement.rbegin(); axis != plan.placement.rend(); ++axis) {
    if (*axis != ParallelAxis::Pipeline) out = out * degree_of(plan, *axis) + at[*axis];
  }
  return out;
}

ExpertPlace expert_place(const ParallelismSpec& plan, const ParallelCoordinates& at) {
  if (!on_expert_grid(plan)) {
    return {.expert_tensor = at[ParallelAxis::ExpertTensor],
            .expert = at[ParallelAxis::Expert],
            .expert_data = index_across(plan, at, sharing_axes(plan, Weights::Experts))};
  }
  const int index = stage_index(plan, at);
  return {.expert_tensor = index % plan.expert_tensor,
          .expert = index / plan.expert_tensor % plan.expert,
          .expert_data = index / (plan.expert_tensor * plan.expert)};
}

int expert_grid_degree(const ParallelismSpec& plan, ExpertGridAxis axis) {
  switch (axis) {
    case ExpertGridAxis::ExpertTensor: return plan.expert_tensor;
    case ExpertGridAxis::Expert: return plan.expert;
    case ExpertGridAxis::ExpertData:
      return on_expert_grid(plan) ? stage_devices(plan) / (plan.expert * plan.expert_tensor)
                                  : sharing_replicas(plan, Weights::Experts);
  }
  throw std::logic_error("an experts' grid axis without a degree");
}

int expert_grid_rank(const ExpertPlace& place, ExpertGridAxis axis) {
  switch (axis) {
    case ExpertGridAxis::ExpertTensor: return place.expert_tensor;
    case ExpertGridAxis::Expert: return place.expert;
    case ExpertGridAxis::ExpertData: return place.expert_data;
  }
  throw std::logic_error("an experts' grid axis without a rank");
}

std::vector<int> expert_grid_group(const ParallelismSpec& plan, int rank, ExpertGridAxis axis) {
  const ParallelCoordinates at = coordinates_of(plan, rank);
  ExpertPlace place = expert_place(plan, at);
  std::vector<int> out;
  for (int member = 0; member < expert_grid_degree(plan, axis); ++member) {
    set_rank(place, axis, member);
    out.push_back(rank_of(plan, at_stage_index(plan, at, stage_index_of(plan, place))));
  }
  return out;
}

std::string expert_grid_name(std::string_view label, const ParallelismSpec& plan, const ParallelCoordinates& at,
                             ExpertGridAxis axis) {
  const ExpertPlace place = expert_place(plan, at);
  std::string out = std::string(label) + "/" + std::to_string(at[ParallelAxis::Pipeline]);
  for (const ExpertGridAxis other : {ExpertGridAxis::ExpertData, ExpertGridAxis::Expert, ExpertGridAxis::ExpertTensor}) {
    if (other != axis) out += "/" + std::to_string(expert_grid_rank(place, other));
  }
  return out;
}

bool holders_share_tensor_rank(const ParallelismSpec& plan) {
  // An expert-data group is the stage indices congruent modulo expert x expert_tensor: each must sit at the tensor
  // rank of the first.
  const int span = plan.expert * plan.expert_tensor;
  const ParallelCoordinates stage{};
  for (int index = span; index < stage_devices(plan); ++index) {
    if (at_stage_index(plan, stage, index)[ParallelAxis::Tensor] !=
        at_stage_index(plan, stage, index % span)[ParallelAxis::Tensor]) {
      return false;
    }
  }
  return true;
}

int expert_group_of(const ParallelismSpec& plan, const ParallelCoordinates& at) {
  if (!on_expert_grid(plan)) return at[ParallelAxis::Data];
  const ExpertPlace place = expert_place(plan, at);
  return place.expert_data * plan.expert_tensor + place.expert_tensor;
}

int expert_groups_routing(const ParallelismSpec& plan) {
  return on_expert_grid(plan) ? stage_devices(plan) / plan.expert : degree_of(plan, ParallelAxis::Data);
}

}  // namespace dtsim::scenario
