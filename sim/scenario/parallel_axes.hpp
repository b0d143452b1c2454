#pragma once
// The axes a plan splits training along, each once, in one table: its name as `training.parallelism` and its
// `placement` spell it, what its groups are called, and where the plan keeps its degree. Coordinates, ranks
// and groups (parallel_layout.hpp), the placement's schema and checks, and the result files all read it, so
// that an axis is its enum value, its row here and the code of its own groups (docs/extending.md, "Adding a
// parallelism axis").

#include "sim/scenario/scenario.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace dtsim::scenario {

struct AxisEntry {
  ParallelAxis axis;
  std::string_view name;         ///< as training.parallelism and its placement spell it
  std::string_view description;  ///< what one of its groups is, for the schema
  std::string_view groups;       ///< the name its groups' channels start with
  int (*degree)(const ParallelismSpec&);  ///< its degree in a plan
};

/// Every axis, in the default placement's order, innermost (consecutive ranks) first.
[[nodiscard]] const std::vector<AxisEntry>& parallel_axes();
[[nodiscard]] const AxisEntry& axis_entry(ParallelAxis axis);
[[nodiscard]] std::optional<ParallelAxis> axis_named(std::string_view name);
/// The degree of `axis` in `plan`: along the data axis, the replicas holding the same experts (data / expert;
/// all the replicas without expert parallelism), the expert axis dividing the data-parallel degree.
[[nodiscard]] inline int degree_of(const ParallelismSpec& plan, ParallelAxis axis) {
  return axis_entry(axis).degree(plan);
}

/// Puts the context and expert axes, where the placement does not list them and their degree is above 1, right
/// after the tensor axis, context first (Megatron-LM's order: tensor, context, expert, data, pipeline).
void place_optional_axes(ParallelismSpec& plan);

}  // namespace dtsim::scenario
