#pragma once
// The axes a plan splits training along, each declared once, in one table: its name as `training.parallelism` and
// its `placement` spell it, its letter in a split's label, what its groups are called, where the plan keeps its
// degree, what it splits, which weights its groups hold alike, the axis it is carved out of, and the degrees a plan
// tries for it. Coordinates, ranks and groups (parallel_layout.hpp), the schema, the reading of a scenario, the
// memory model, the planner, the summary and the checks read it, so that an axis is its enum value, its row here
// and the code of its own groups and passes (docs/extending.md, "A new parallelism axis").

#include "models/model_profile.hpp"
#include "sim/scenario/scenario.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::scenario {

/// What an axis's groups divide among their devices, as bits of a mask. What a device's layers are divided by comes
/// from these (device_share_of): the dense matrices by the degrees of the axes that split them
/// (models::DeviceShare::tensor), the routed experts (expert), the experts' matrices (expert_matrices) and the tokens
/// (context) likewise; the layers are cut into stages apart (pipeline_plan.hpp).
enum class Splits : unsigned {
  Nothing = 0,
  DenseMatrices = 1U << 0U,   ///< the dense layers' weight matrices (by columns, rows or heads)
  ExpertMatrices = 1U << 1U,  ///< each routed expert's weight matrices
  Experts = 1U << 2U,         ///< the routed experts themselves, whole
  Sequence = 1U << 3U,        ///< every sequence's tokens
  Layers = 1U << 4U,          ///< the layers, into pipeline stages
  Batch = 1U << 5U,           ///< the batch, over replicas of the model
};
[[nodiscard]] constexpr Splits operator|(Splits a, Splits b) {
  return static_cast<Splits>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
/// Whether `set` has the bit `what`.
[[nodiscard]] constexpr bool has(Splits set, Splits what) {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(what)) != 0U;
}

/// Kinds of weights, as bits of a mask: a device holds its copy of each, which ZeRO partitions over the devices
/// holding the same copy.
enum class Weights : unsigned {
  None = 0,
  Dense = 1U << 0U,    ///< every layer's weights but the routed experts'
  Experts = 1U << 1U,  ///< the routed experts' weights
};
[[nodiscard]] constexpr Weights operator|(Weights a, Weights b) {
  return static_cast<Weights>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
[[nodiscard]] constexpr bool has(Weights set, Weights what) {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(what)) != 0U;
}

/// The degrees a plan tries for an axis over `room` devices (for an axis carved out of another, what the axes carved
/// out of that one before it leave of its degree) for a model of `shape`, ascending; only `fixed` where the user
/// fixed it (none where it does not fit).
using DegreeChoices = std::vector<int> (*)(int room, const models::TransformerShape& shape,
                                           const std::optional<int>& fixed);

struct AxisEntry {
  ParallelAxis axis = ParallelAxis::Data;
  /// As training.parallelism, its placement, summary.json and plan.csv spell it (`dtsim plan`'s flag: dashed).
  std::string_view name;
  std::string_view label;        ///< its letters in a split's label and a placement ("t8 p4 d32", "t-p-d")
  std::string_view description;  ///< what one of its groups is, for the schema's placement choices
  std::string_view groups;       ///< the name its groups' channels start with
  std::string_view refused_as;   ///< its groups as a refusal names them ("tensor-parallel groups")
  std::string_view key_description;  ///< training.parallelism.<name>, for the schema
  std::int64_t most = 1024;          ///< the largest degree a scenario takes (the schema's bound)
  int ParallelismSpec::*declared = nullptr;                  ///< its degree as training.parallelism declares it
  core::SourcePosition ParallelismSpec::*declared_at = nullptr;  ///< where
  Splits splits = Splits::Nothing;  ///< what its groups divide (device_share_of, is_model_parallel)
  /// The weights its groups' devices hold alike (each has the same copy), over which ZeRO partitions them.
  Weights shares = Weights::None;
  /// The axis whose devices its groups are carved out of (the expert groups out of the data-parallel replicas: the
  /// data degree counts them, and the data axis's own degree is data / expert); none for an axis of its own devices.
  std::optional<ParallelAxis> carved_from;
  /// Every split lists it (its degree in a split's label, summary.json, a placement); otherwise only above 1, and
  /// a placement may leave it out (place_optional_axes puts it).
  bool always_listed = true;
  /// The degrees `dtsim plan` tries; none for the data axis, whose degree is the devices the others leave.
  DegreeChoices tries = nullptr;
  /// The key of the choice its groups make, written beside its degree in summary.json ("all_to_all"); "" for none.
  std::string_view setting;
  std::string (*setting_of)(const ParallelismSpec& plan) = nullptr;  ///< that choice's value
};

/// Every axis, in the default placement's order, innermost (consecutive ranks) first.
[[nodiscard]] const std::vector<AxisEntry>& parallel_axes();
[[nodiscard]] const AxisEntry& axis_entry(ParallelAxis axis);
[[nodiscard]] std::optional<ParallelAxis> axis_named(std::string_view name);

/// The order `dtsim plan` lists the axes in (split labels, plan.csv's columns, its flags, its bounds): the axes
/// every split lists, then those it lists only above 1, each in the table's order, then the data axis whose degree
/// is what the others leave (tensor, pipeline, context, expert, data).
[[nodiscard]] const std::vector<ParallelAxis>& listing_order();
/// The enum's order (tensor, pipeline, data, expert, context): the order the axes came to dtsim in, which
/// summary.json's optional keys follow.
[[nodiscard]] const std::vector<ParallelAxis>& declaration_order();

/// `axis`'s index in an array with one value per axis.
[[nodiscard]] constexpr std::size_t axis_index(ParallelAxis axis) { return static_cast<std::size_t>(axis); }
/// One degree per axis, indexed by axis_index: as training.parallelism declares them.
using AxisDegrees = std::array<int, kParallelAxes>;
/// Every degree 1.
[[nodiscard]] constexpr AxisDegrees unsplit() {
  AxisDegrees out{};
  out.fill(1);
  return out;
}

/// `axis`'s degree as `plan` declares it (the data axis's: every replica, the expert groups' devices among them).
[[nodiscard]] int declared_degree(const ParallelismSpec& plan, ParallelAxis axis);
void set_declared_degree(ParallelismSpec& plan, ParallelAxis axis, int value);
[[nodiscard]] AxisDegrees declared_degrees(const ParallelismSpec& plan);
/// The degree along which ranks are placed: the declared one divided by the degrees of the axes carved out of it
/// (along the data axis, the replicas holding the same experts: data / expert).
[[nodiscard]] int placed_degree(const AxisDegrees& declared, ParallelAxis axis);
/// placed_degree of `plan`'s degrees; on the experts' own grid (expert_tensor declared, expert_grid.hpp) 1 for the
/// expert and expert-tensor axes, which place no rank, and every replica for the data axis.
[[nodiscard]] int degree_of(const ParallelismSpec& plan, ParallelAxis axis);

/// What `entry`'s groups divide under `plan`: its row's splits, less the routed experts' matrices for an axis of the
/// dense matrices where expert_tensor is declared (the experts' own grid, Megatron-Core's: the expert-tensor group
/// alone splits them).
[[nodiscard]] Splits splits_under(const AxisEntry& entry, const ParallelismSpec& plan);
/// The weights `entry`'s groups' devices hold alike under `plan`: its row's, and the routed experts' for an axis of
/// the dense matrices where expert_tensor is declared (its devices then hold the same expert matrices, each running
/// them on its own share of the tokens).
[[nodiscard]] Weights shares_under(const AxisEntry& entry, const ParallelismSpec& plan);

/// The devices of a stage holding the same copy of a weight of kind `kind` (one bit), over which ZeRO partitions
/// it: the declared degrees of the axes that share it, less those carved out of them that do not (dense weights:
/// data x context; the routed experts': data / (expert x expert_tensor), times tensor on the experts' own grid).
[[nodiscard]] int sharing_replicas(const ParallelismSpec& plan, Weights kind);
/// The axes sharing `kind` under `plan`, in the table's order (innermost first): those a replica group spans.
[[nodiscard]] std::vector<ParallelAxis> sharing_axes(const ParallelismSpec& plan, Weights kind);
/// Whether the routed experts' weights are held alike by other devices than the dense ones, and so reduced and
/// partitioned over replicas of their own: where an axis of degree above 1 splits them and not the dense matrices
/// (expert, expert_tensor), or shares them and not the dense weights (tensor on the experts' own grid).
[[nodiscard]] bool experts_apart(const ParallelismSpec& plan);

/// The divisors of `n`, ascending (none above 2^30); only `fixed` where it is given, and none where it is not one.
[[nodiscard]] std::vector<int> degrees_dividing(std::int64_t n, const std::optional<int>& fixed);

/// Puts the axes a placement may leave out (always_listed false: context, expert), where it does and their degree
/// is above 1, right after the tensor axis, in the table's order (Megatron-LM's order: tensor, context, expert,
/// data, pipeline).
void place_optional_axes(ParallelismSpec& plan);

}  // namespace dtsim::scenario
