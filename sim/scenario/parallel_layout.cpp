#include "sim/scenario/parallel_layout.hpp"

namespace dtsim::scenario {
namespace {

int degree(const ParallelismSpec& plan, ParallelAxis axis) {
  switch (axis) {
    case ParallelAxis::Tensor: return plan.tensor;
    case ParallelAxis::Pipeline: return plan.pipeline;
    case ParallelAxis::Data: return plan.data;
  }
  return 1;
}

int& coordinate(ParallelCoordinates& at, ParallelAxis axis) {
  switch (axis) {
    case ParallelAxis::Tensor: return at.tensor;
    case ParallelAxis::Pipeline: return at.pipeline;
    case ParallelAxis::Data: return at.data;
  }
  return at.data;
}

}  // namespace

ParallelCoordinates coordinates_of(const ParallelismSpec& plan, int rank) {
  ParallelCoordinates out;
  for (const ParallelAxis axis : plan.placement) {
    const int size = degree(plan, axis);
    coordinate(out, axis) = rank % size;
    rank /= size;
  }
  return out;
}

int rank_of(const ParallelismSpec& plan, const ParallelCoordinates& at) {
  int rank = 0;
  ParallelCoordinates copy = at;
  for (auto axis = plan.placement.rbegin(); axis != plan.placement.rend(); ++axis) {
    rank = rank * degree(plan, *axis) + coordinate(copy, *axis);
  }
  return rank;
}

std::vector<int> group_along(const ParallelismSpec& plan, int rank, ParallelAxis axis) {
  ParallelCoordinates at = coordinates_of(plan, rank);
  std::vector<int> out;
  for (int i = 0; i < degree(plan, axis); ++i) {
    coordinate(at, axis) = i;
    out.push_back(rank_of(plan, at));
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
