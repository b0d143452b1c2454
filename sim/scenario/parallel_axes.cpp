#include "sim/scenario/parallel_axes.hpp"

#include <algorithm>
#include <stdexcept>

namespace dtsim::scenario {

const std::vector<AxisEntry>& parallel_axes() {
  static const std::vector<AxisEntry> table{
      {ParallelAxis::Tensor, "tensor", "tensor-parallel groups", "tensor",
       [](const ParallelismSpec& plan) { return plan.tensor; }},
      {ParallelAxis::Context, "context", "context-parallel groups (a sequence's tokens split)", "context",
       [](const ParallelismSpec& plan) { return plan.context; }},
      {ParallelAxis::Expert, "expert", "expert-parallel groups (replicas exchanging tokens)", "experts",
       [](const ParallelismSpec& plan) { return plan.expert; }},
      {ParallelAxis::Pipeline, "pipeline", "pipeline stages", "pipeline",
       [](const ParallelismSpec& plan) { return plan.pipeline; }},
      {ParallelAxis::Data, "data", "model replicas", "replicas",
       [](const ParallelismSpec& plan) { return plan.data / plan.expert; }},
  };
  return table;
}

const AxisEntry& axis_entry(ParallelAxis axis) {
  const auto& table = parallel_axes();
  const auto it = std::find_if(table.begin(), table.end(), [&](const AxisEntry& entry) { return entry.axis == axis; });
  if (it == table.end()) throw std::logic_error("a parallel axis without an entry");
  return *it;
}

std::optional<ParallelAxis> axis_named(std::string_view name) {
  for (const AxisEntry& entry : parallel_axes()) {
    if (entry.name == name) return entry.axis;
  }
  return std::nullopt;
}

void place_optional_axes(ParallelismSpec& plan) {
  auto& axes = plan.placement;
  for (const ParallelAxis axis : {ParallelAxis::Expert, ParallelAxis::Context}) {
    if (degree_of(plan, axis) < 2 || std::find(axes.begin(), axes.end(), axis) != axes.end()) continue;
    axes.insert(std::find(axes.begin(), axes.end(), ParallelAxis::Tensor) + 1, axis);
  }
}

}  // namespace dtsim::scenario
