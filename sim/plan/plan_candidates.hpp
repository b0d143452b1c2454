#pragma once
// The ways `dtsim plan` tries to split a model over a number of devices: every tensor x pipeline x context x
// data (x expert) factorization of the devices, every micro-batch count that divides a replica's batch, every
// ZeRO stage, recomputation mode and pipeline schedule (the interleaved one with every virtual-stage count that
// gives each model chunk the same whole number of transformer blocks), less what the user fixed. What a split
// cannot run (heads a tensor degree does not divide, layers fewer than stages, memory) is the screen's to say
// (plan_screen.hpp), each with its reason.

#include "models/device_share.hpp"
#include "models/model_profile.hpp"
#include "models/pipeline_plan.hpp"
#include "sim/scenario/parallel_axes.hpp"
#include "sim/scenario/scenario.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::planner {

struct PlanCandidate {
  int devices = 1;
  /// Each axis's degree as training.parallelism declares it, by scenario::axis_index (the data axis's: every
  /// replica, the expert groups' devices among them); degree() reads and sets one.
  scenario::AxisDegrees degrees = scenario::unsplit();
  int microbatches = 1;
  int zero = 0;
  models::Recomputation recomputation = models::Recomputation::None;
  models::PipelineSchedule schedule = models::PipelineSchedule::OneForwardOneBackward;
  int virtual_stages = 1;
  /// The routed experts on their own grid (`--expert-tensor` given): the expert and expert-tensor degrees divide a
  /// stage's devices, laid over them (scenario/expert_grid.hpp), rather than the replicas.
  bool expert_grid = false;
  /// The order of the tensor, pipeline and data axes over the ranks, innermost first (context and expert go
  /// right after tensor, as scenario::place_optional_axes puts them).
  std::vector<scenario::ParallelAxis> order{scenario::ParallelAxis::Tensor, scenario::ParallelAxis::Pipeline,
                                            scenario::ParallelAxis::Data};

  [[nodiscard]] int degree(scenario::ParallelAxis axis) const { return degrees[scenario::axis_index(axis)]; }
  [[nodiscard]] int& degree(scenario::ParallelAxis axis) { return degrees[scenario::axis_index(axis)]; }
  /// "t8 p4 d32 m64 z1 selective 1f1b" (e and c shown above 1, v under interleaving), and "placed d-t-p" where the
  /// order is not tensor, pipeline, data.
  [[nodiscard]] std::string label() const;
  /// The label without the placement: what the checks and the memory model see.
  [[nodiscard]] std::string split_label() const;
  /// The degrees alone, in scenario::listing_order ("t8 p4 c2 d32"; those an axis lists only above 1 left out at 1).
  [[nodiscard]] std::string degrees_label() const;
  /// The order as "t-p-d".
  [[nodiscard]] std::string placement() const;
};

/// What the user fixed (`dtsim plan --tensor 8 --zero 1 ...`); unset: every value is tried.
struct PlanSpace {
  /// The degrees fixed, by scenario::axis_index (the data axis's never: it is what the others leave); degree()
  /// reads and sets one.
  std::array<std::optional<int>, scenario::kParallelAxes> degrees{};
  std::optional<int> microbatches;
  std::optional<int> zero;
  std::optional<models::Recomputation> recomputation;
  std::optional<models::PipelineSchedule> schedule;
  /// `--keep-placement`: the scenario's order of the tensor, pipeline and data axes only (search_devices fills
  /// `placement` with it).
  bool keep_placement = false;
  /// The order of the tensor, pipeline and data axes; unset: every order that places the ranks differently (the
  /// axes of degree 1 keep their places).
  std::optional<std::vector<scenario::ParallelAxis>> placement;

  [[nodiscard]] const std::optional<int>& degree(scenario::ParallelAxis axis) const {
    return degrees[scenario::axis_index(axis)];
  }
  [[nodiscard]] std::optional<int>& degree(scenario::ParallelAxis axis) { return degrees[scenario::axis_index(axis)]; }
};

/// The flag of `dtsim plan` and `dtsim scale --plan` that fixes `axis`'s degree: its name after "--", dashed as flags
/// are ("--tensor").
std::string degree_flag(scenario::ParallelAxis axis);

/// The model chunks a device may run under the interleaved schedule on `pipeline` stages of a model of `blocks`
/// transformer blocks, ascending: every count of 2 or more that divides the blocks a stage holds, so that every
/// chunk holds as many whole blocks as the others (Megatron-LM's rule, and the split_into_stages cuts fall on
/// the blocks), up to one block a chunk, where the bubble (p - 1) / (m v) is smallest. None where the pipeline
/// does not divide the blocks; 2 and 4 for a layer table without blocks (`blocks` 0).
std::vector<int> virtual_stage_counts(int pipeline, int blocks);

/// The order of the tensor, pipeline and data axes in `plan`'s placement (those a placement may leave out, context
/// and expert, left out).
std::vector<scenario::ParallelAxis> core_order(const scenario::ParallelismSpec& plan);

/// `candidate` with its tensor, pipeline and data axes in `order`, written as the enumeration writes it: the axes
/// of degree above 1 in `order`'s order over their places in tensor, pipeline, data, those of degree 1 in theirs
/// (two orders that place the ranks alike give one label).
PlanCandidate placed(PlanCandidate candidate, const std::vector<scenario::ParallelAxis>& order);

/// `s`'s own split as the candidate over its devices that the enumeration would write (its order of the axes
/// `placed`): its label is the enumerated candidate's, where the scenario's split is one.
PlanCandidate own_candidate(const scenario::Scenario& s);

/// The global batch every split keeps, in samples: `training.batch.global`, or per_worker x the declared
/// data-parallel degree.
std::int64_t global_batch(const scenario::TrainingSpec& training);

/// Every candidate over `devices` devices for a model of `shape` (context degrees are tried for sequences of
/// 8,192 tokens and more; expert degrees for mixtures), the data degree the devices left over; a data degree
/// that does not divide `batch` gives no candidate (`undivided` counts them). In a fixed order.
std::vector<PlanCandidate> enumerate_candidates(const PlanSpace& space, int devices, const models::TransformerShape& shape,
                                                std::int64_t batch, std::int64_t& undivided);

/// Calls `visit` with every candidate enumerate_candidates returns, in its order, holding none of them (a space of
/// millions searched in the memory of one), until `visit` returns false. `undivided` as there; `on_undivided`, where
/// given, sees each split counted there, in the same order (its tensor, pipeline, context and data degrees set, no
/// other choice tried).
void for_each_candidate(const PlanSpace& space, int devices, const models::TransformerShape& shape, std::int64_t batch,
                        std::int64_t& undivided, const std::function<bool(const PlanCandidate&)>& visit,
                        const std::function<void(const PlanCandidate&)>& on_undivided = {});

/// How many candidates for_each_candidate visits, counted without keeping one.
std::int64_t count_candidates(const PlanSpace& space, int devices, const models::TransformerShape& shape,
                              std::int64_t batch);

/// `s` (a scenario over the candidate's devices) split as `candidate` says: its parallelism, its batch per
/// replica and its recomputation. Tensor groups run sequence parallel; the placement keeps its axes' order.
void apply_candidate(const PlanCandidate& candidate, std::int64_t batch, scenario::Scenario& s);

/// The candidate as one point of a `sweep: {points: [...]}` over `s`'s scenario file: the flow-style map of
/// the keys apply_candidate sets (the placement's order among them), and the cluster's size.
std::string sweep_point_yaml(const PlanCandidate& candidate, std::int64_t batch, const scenario::Scenario& s);

}  // namespace dtsim::planner
