#include "sim/plan/plan_candidates.hpp"

#include "sim/scenario/named_values.hpp"
#include "sim/scenario/parallel_axes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <utility>

namespace dtsim::planner {
namespace {

/// `all`, or only `fixed` where the user fixed it (nothing when it is not among them).
std::vector<int> allowed(std::vector<int> all, const std::optional<int>& fixed) {
  if (!fixed) return all;
  return std::find(all.begin(), all.end(), *fixed) != all.end() ? std::vector<int>{*fixed} : std::vector<int>{};
}

std::vector<std::pair<models::PipelineSchedule, int>> schedules(int pipeline, int blocks, const PlanSpace& space) {
  using S = models::PipelineSchedule;
  if (pipeline == 1) return {{space.schedule.value_or(S::OneForwardOneBackward), 1}};
  std::vector<std::pair<S, int>> options{{S::OneForwardOneBackward, 1}, {S::GPipe, 1}, {S::ZeroBubble, 1}};
  for (const int chunks : virtual_stage_counts(pipeline, blocks)) options.emplace_back(S::Interleaved, chunks);
  std::vector<std::pair<S, int>> out;
  for (const auto& option : options) {
    if (!space.schedule || *space.schedule == option.first) out.push_back(option);
  }
  return out;
}

/// The tensor, pipeline and data axes (those every placement lists) in the default placement's order, innermost
/// first: their order when the placement is not searched.
const std::vector<scenario::ParallelAxis>& default_order() {
  static const std::vector<scenario::ParallelAxis> order = [] {
    std::vector<scenario::ParallelAxis> out;
    for (const scenario::AxisEntry& entry : scenario::parallel_axes()) {
      if (entry.always_listed) out.push_back(entry.axis);
    }
    return out;
  }();
  return order;
}

/// The degree of one of the tensor, pipeline and data axes in `split` (the data axis's: replicas of the same experts).
int core_degree(const PlanCandidate& split, scenario::ParallelAxis axis) {
  // On the experts' own grid the expert axes place no rank: the data axis places every replica.
  return split.expert_grid ? split.degree(axis) : scenario::placed_degree(split.degrees, axis);
}

/// The orders of the tensor, pipeline and data axes that place `split`'s ranks differently: every permutation of
/// the axes of degree above 1 over their places in the default order (tensor, pipeline, data), that one first.
std::vector<std::vector<scenario::ParallelAxis>> orders(const PlanCandidate& split, const PlanSpace& space) {
  using A = scenario::ParallelAxis;
  if (space.placement) return {*space.placement};
  const std::vector<A>& first = default_order();
  const auto degree = [&](A axis) { return core_degree(split, axis); };
  std::vector<std::size_t> places;
  for (std::size_t i = 0; i < first.size(); ++i) {
    if (degree(first[i]) > 1) places.push_back(i);
  }
  std::vector<std::size_t> moved(places.size());
  for (std::size_t k = 0; k < moved.size(); ++k) moved[k] = k;
  std::vector<std::vector<A>> out;
  do {
    std::vector<A> order = first;
    for (std::size_t k = 0; k < places.size(); ++k) order[places[k]] = first[places[moved[k]]];
    out.push_back(std::move(order));
  } while (std::next_permutation(moved.begin(), moved.end()));
  return out;
}

/// The memory and schedule choices of one split: micro-batches, ZeRO stage, recomputation, schedule, then the
/// placement's order (innermost, so that the candidates the checks see alike come together). False once `visit`
/// has said to stop.
bool add_choices(const PlanSpace& space, PlanCandidate split, std::int64_t replica_batch, int blocks,
                 const std::function<bool(const PlanCandidate&)>& visit) {
  const std::vector<std::vector<scenario::ParallelAxis>> placements = orders(split, space);
  const int pipeline = split.degree(scenario::ParallelAxis::Pipeline);
  using R = models::Recomputation;
  std::vector<R> modes{R::None, R::Selective, R::Full};
  if (space.recomputation) modes = {*space.recomputation};
  for (const int m : scenario::degrees_dividing(replica_batch, space.microbatches)) {
    for (const int zero : allowed({0, 1, 2, 3}, space.zero)) {
      for (const R mode : modes) {
        for (const auto& [schedule, chunks] : schedules(pipeline, blocks, space)) {
          PlanCandidate c = split;
          c.microbatches = m;
          c.zero = zero;
          c.recomputation = mode;
          c.schedule = schedule;
          c.virtual_stages = chunks;
          for (const auto& order : placements) {
            c.order = order;
            if (!visit(c)) return false;
          }
        }
      }
    }
  }
  return true;
}

/// The axes `dtsim plan` tries degrees for, in scenario::listing_order: with `carved` false, those dividing the
/// devices (the data degree is what they leave); true, those carved out of another's degree, tried once it is known.
std::vector<scenario::ParallelAxis> tried_axes(bool carved) {
  std::vector<scenario::ParallelAxis> out;
  for (const scenario::ParallelAxis axis : scenario::listing_order()) {
    const scenario::AxisEntry& entry = scenario::axis_entry(axis);
    if (entry.tries != nullptr && entry.carved_from.has_value() == carved) out.push_back(axis);
  }
  return out;
}

/// One enumeration's inputs, for the steps that give the axes their degrees one after another.
struct Enumeration {
  const PlanSpace& space;
  const models::TransformerShape& shape;
  std::int64_t batch;
  std::int64_t& undivided;
  const std::function<bool(const PlanCandidate&)>& visit;
  const std::function<void(const PlanCandidate&)>& on_undivided;
  std::vector<scenario::ParallelAxis> dividing;  ///< tried_axes(false)
  std::vector<scenario::ParallelAxis> carved;    ///< tried_axes(true)
};

/// Gives the axes carved out of others, from `next` on, each degree they may take, then makes the memory and
/// schedule choices. False once `visit` has said to stop.
bool carve(const Enumeration& run, std::size_t next, PlanCandidate split) {
  if (next == run.carved.size()) {
    const int data = split.degree(scenario::ParallelAxis::Data);
    return add_choices(run.space, split, run.batch / data, run.shape.layers, run.visit);
  }
  // Its room is what the axes carved out of the same one before it leave (those after it are still 1); on the
  // experts' own grid, what they leave of a stage's devices (Megatron-Core's parallel folding).
  const scenario::AxisEntry& entry = scenario::axis_entry(run.carved[next]);
  split.expert_grid = run.space.degree(scenario::ParallelAxis::ExpertTensor).has_value();
  int room = scenario::placed_degree(split.degrees, *entry.carved_from);
  if (split.expert_grid) {
    room = split.degree(scenario::ParallelAxis::Tensor) * split.degree(scenario::ParallelAxis::Context) *
           split.degree(scenario::ParallelAxis::Data);
    for (const scenario::ParallelAxis carved : run.carved) room /= split.degree(carved);
  }
  for (const int degree : entry.tries(room, run.shape, run.space.degree(entry.axis))) {
    split.degree(entry.axis) = degree;
    if (!carve(run, next + 1, split)) return false;
  }
  return true;
}

/// Gives the axes dividing the devices, from `next` on, each degree they may take over the `room` devices the
/// earlier ones leave; the data axis then takes the rest, and a data degree that does not divide the batch is
/// counted undivided with no other choice tried. False once `visit` has said to stop.
bool divide(const Enumeration& run, std::size_t next, PlanCandidate split, int room) {
  if (next == run.dividing.size()) {
    split.degree(scenario::ParallelAxis::Data) = room;
    if (run.batch % room != 0) {
      ++run.undivided;
      if (run.on_undivided) run.on_undivided(split);
      return true;
    }
    return carve(run, 0, split);
  }
  const scenario::AxisEntry& entry = scenario::axis_entry(run.dividing[next]);
  for (const int degree : entry.tries(room, run.shape, run.space.degree(entry.axis))) {
    split.degree(entry.axis) = degree;
    if (!divide(run, next + 1, split, room / degree)) return false;
  }
  return true;
}

}  // namespace

std::string degree_flag(scenario::ParallelAxis axis) {
  std::string out = "--" + std::string(scenario::axis_entry(axis).name);
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

std::vector<int> virtual_stage_counts(int pipeline, int blocks) {
  if (pipeline < 2) return {};
  // A layer table without transformer blocks (a ResNet's) is cut between any layers: 2 and 4 chunks a device,
  // the screen refusing what its layers cannot hold.
  if (blocks <= 0) return {2, 4};
  std::vector<int> out;
  if (blocks % pipeline != 0) return out;
  for (const int chunks : scenario::degrees_dividing(blocks / pipeline, std::nullopt)) {
    if (chunks > 1) out.push_back(chunks);
  }
  return out;
}

std::string PlanCandidate::placement() const {
  std::string out;
  for (const scenario::ParallelAxis axis : order) {
    out += (out.empty() ? "" : "-") + std::string(scenario::axis_entry(axis).label);
  }
  return out;
}

std::string PlanCandidate::label() const {
  return order == default_order() ? split_label() : split_label() + " placed " + placement();
}

std::vector<scenario::ParallelAxis> core_order(const scenario::ParallelismSpec& plan) {
  std::vector<scenario::ParallelAxis> out = plan.placement;
  std::erase_if(out, [](scenario::ParallelAxis axis) { return !scenario::axis_entry(axis).always_listed; });
  return out;
}

std::string PlanCandidate::degrees_label() const {
  std::string out;
  for (const scenario::ParallelAxis axis : scenario::listing_order()) {
    const scenario::AxisEntry& entry = scenario::axis_entry(axis);
    if (!entry.always_listed && degree(axis) < 2) continue;
    out += fmt::format("{}{}{}", out.empty() ? "" : " ", entry.label, degree(axis));
  }
  return out;
}

std::string PlanCandidate::split_label() const {
  std::string out = degrees_label();
  out += fmt::format(" m{} z{} {}", microbatches, zero, scenario::to_string(recomputation));
  if (degree(scenario::ParallelAxis::Pipeline) > 1) out += fmt::format(" {}", scenario::to_string(schedule));
  if (virtual_stages > 1) out += fmt::format(" v{}", virtual_stages);
  return out;
}

PlanCandidate placed(PlanCandidate candidate, const std::vector<scenario::ParallelAxis>& order) {
  std::vector<scenario::ParallelAxis> moved;
  for (const scenario::ParallelAxis axis : order) {
    if (core_degree(candidate, axis) > 1) moved.push_back(axis);
  }
  std::vector<scenario::ParallelAxis> out = default_order();
  std::size_t next = 0;
  for (scenario::ParallelAxis& axis : out) {
    if (core_degree(candidate, axis) > 1 && next < moved.size()) axis = moved[next++];
  }
  candidate.order = std::move(out);
  return candidate;
}

PlanCandidate own_candidate(const scenario::Scenario& s) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const PlanCandidate split{.devices = s.cluster.workers, .degrees = scenario::declared_degrees(plan),
                            .microbatches = plan.microbatches, .zero = plan.zero,
                            .recomputation = s.training.recomputation, .schedule = plan.schedule,
                            .virtual_stages = plan.pipeline > 1 ? plan.virtual_stages : 1};
  return placed(split, core_order(plan));
}

std::int64_t global_batch(const scenario::TrainingSpec& training) {
  return static_cast<std::int64_t>(training.batch_per_worker) * training.parallelism.data;
}

void for_each_candidate(const PlanSpace& space, int devices, const models::TransformerShape& shape, std::int64_t batch,
                        std::int64_t& undivided, const std::function<bool(const PlanCandidate&)>& visit,
                        const std::function<void(const PlanCandidate&)>& on_undivided) {
  const Enumeration run{.space = space,
                        .shape = shape,
                        .batch = batch,
                        .undivided = undivided,
                        .visit = visit,
                        .on_undivided = on_undivided,
                        .dividing = tried_axes(false),
                        .carved = tried_axes(true)};
  divide(run, 0, PlanCandidate{.devices = devices}, devices);
}

std::vector<PlanCandidate> enumerate_candidates(const PlanSpace& space, int devices, const models::TransformerShape& shape,
                                                std::int64_t batch, std::int64_t& undivided) {
  std::vector<PlanCandidate> out;
  for_each_candidate(space, devices, shape, batch, undivided, [&](const PlanCandidate& c) {
    out.push_back(c);
    return true;
  });
  return out;
}

std::int64_t count_candidates(const PlanSpace& space, int devices, const models::TransformerShape& shape,
                              std::int64_t batch) {
  std::int64_t count = 0;
  std::int64_t undivided = 0;
  for_each_candidate(space, devices, shape, batch, undivided, [&](const PlanCandidate&) {
    ++count;
    return true;
  });
  return count;
}

void apply_candidate(const PlanCandidate& candidate, std::int64_t batch, scenario::Scenario& s) {
  scenario::ParallelismSpec& plan = s.training.parallelism;
  for (const scenario::AxisEntry& entry : scenario::parallel_axes()) {
    scenario::set_declared_degree(plan, entry.axis, candidate.degree(entry.axis));
  }
  // A split on the experts' own grid is declared so (sweep_point_yaml writes its degree); otherwise the scenario's
  // own declaration stands.
  if (candidate.expert_grid || candidate.degree(scenario::ParallelAxis::ExpertTensor) > 1) {
    plan.expert_tensor_declared = true;
  }
  plan.microbatches = candidate.microbatches;
  plan.zero = candidate.zero;
  plan.schedule = candidate.schedule;
  plan.virtual_stages = candidate.virtual_stages;
  plan.sequence_parallel = candidate.degree(scenario::ParallelAxis::Tensor) > 1;
  plan.placement = candidate.order;
  scenario::place_optional_axes(plan);
  s.training.recomputation = candidate.recomputation;
  s.training.batch_per_worker = static_cast<int>(batch / candidate.degree(scenario::ParallelAxis::Data));
}

std::string sweep_point_yaml(const PlanCandidate& candidate, std::int64_t batch, const scenario::Scenario& s) {
  std::string out = fmt::format("cluster.workers: {}", candidate.devices);
  if (!s.cluster.nodes.empty()) {
    out += fmt::format(", cluster.nodes.0.count: {}", candidate.devices / s.cluster.nodes.front().devices);
  }
  // The degrees every split lists, then those listed only above 1 here or in the scenario (so that the point
  // replaces the scenario's own), each in the planner's order.
  for (const bool listed : {true, false}) {
    for (const scenario::ParallelAxis axis : scenario::listing_order()) {
      const scenario::AxisEntry& entry = scenario::axis_entry(axis);
      if (entry.always_listed != listed) continue;
      // The experts' own grid is declared by its expert-tensor degree, 1 included.
      const bool grid = candidate.expert_grid && axis == scenario::ParallelAxis::ExpertTensor;
      const bool split =
          grid || candidate.degree(axis) > 1 || scenario::declared_degree(s.training.parallelism, axis) > 1;
      if (!listed && !split) continue;
      out += fmt::format(", training.parallelism.{}: {}", entry.name, candidate.degree(axis));
    }
  }
  out += fmt::format(", training.parallelism.microbatches: {}, training.parallelism.zero: {}, "
                     "training.parallelism.schedule: {}, training.parallelism.virtual_stages: {}, "
                     "training.parallelism.sequence_parallel: {}, training.recomputation: {}",
                     candidate.microbatches, candidate.zero, scenario::to_string(candidate.schedule),
                     candidate.virtual_stages, candidate.degree(scenario::ParallelAxis::Tensor) > 1,
                     scenario::to_string(candidate.recomputation));
  std::string names;
  for (const scenario::ParallelAxis axis : candidate.order) {
    names += (names.empty() ? "" : ", ") + std::string(scenario::axis_entry(axis).name);
  }
  out += fmt::format(", training.parallelism.placement: [{}]", names);
  out += s.training.batch_declared_global ? fmt::format(", training.batch.global: {}", batch)
                                          : fmt::format(", training.batch.per_worker: {}",
                                                        batch / candidate.degree(scenario::ParallelAxis::Data));
  return "{" + out + "}";
}

}  // namespace dtsim::planner
