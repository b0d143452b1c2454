#include "sim/plan/plan_candidates.hpp"

#include "sim/scenario/named_values.hpp"
#include "sim/scenario/parallel_axes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <utility>

namespace dtsim::app {
namespace {

std::vector<int> divisors(std::int64_t n) {
  std::vector<int> out;
  for (std::int64_t d = 1; d <= n && d <= (std::int64_t{1} << 30); ++d) {
    if (n % d == 0) out.push_back(static_cast<int>(d));
  }
  return out;
}

/// `all`, or only `fixed` where the user fixed it (nothing when it is not among them).
std::vector<int> allowed(std::vector<int> all, const std::optional<int>& fixed) {
  if (!fixed) return all;
  return std::find(all.begin(), all.end(), *fixed) != all.end() ? std::vector<int>{*fixed} : std::vector<int>{};
}

/// Context parallelism pays for itself on long sequences only (Megatron-LM's guidance: 8K tokens and up), so
/// shorter ones are not split unless the user asks; at most 16 devices share a sequence.
std::vector<int> context_degrees(int rest, const models::TransformerShape& shape, const std::optional<int>& fixed) {
  if (!fixed && shape.sequence < 8192) return {1};
  std::vector<int> out;
  for (const int c : allowed(divisors(rest), fixed)) {
    if (c <= 16 || fixed) out.push_back(c);
  }
  return out;
}

std::vector<int> expert_degrees(int data, const models::TransformerShape& shape, const std::optional<int>& fixed) {
  if (shape.experts <= 0) return allowed({1}, fixed);
  std::vector<int> out;
  for (const int e : allowed(divisors(data), fixed)) {
    if (shape.experts % e == 0) out.push_back(e);
  }
  return out;
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

/// The tensor, pipeline and data axes' order when the placement is not searched, innermost first.
const std::vector<scenario::ParallelAxis> kDefaultOrder{
    scenario::ParallelAxis::Tensor, scenario::ParallelAxis::Pipeline, scenario::ParallelAxis::Data};

/// The degree of one of the tensor, pipeline and data axes in `split` (the data axis's: replicas of the same experts).
int core_degree(const PlanCandidate& split, scenario::ParallelAxis axis) {
  using A = scenario::ParallelAxis;
  return axis == A::Tensor ? split.tensor : axis == A::Pipeline ? split.pipeline : split.data / split.expert;
}

/// The orders of the tensor, pipeline and data axes that place `split`'s ranks differently: every permutation of
/// the axes of degree above 1 over their places in the default order (tensor, pipeline, data), that one first.
std::vector<std::vector<scenario::ParallelAxis>> orders(const PlanCandidate& split, const PlanSpace& space) {
  using A = scenario::ParallelAxis;
  if (space.placement) return {*space.placement};
  const std::vector<A>& first = kDefaultOrder;
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
  using R = models::Recomputation;
  std::vector<R> modes{R::None, R::Selective, R::Full};
  if (space.recomputation) modes = {*space.recomputation};
  for (const int m : allowed(divisors(replica_batch), space.microbatches)) {
    for (const int zero : allowed({0, 1, 2, 3}, space.zero)) {
      for (const R mode : modes) {
        for (const auto& [schedule, chunks] : schedules(split.pipeline, blocks, space)) {
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

}  // namespace

std::vector<int> virtual_stage_counts(int pipeline, int blocks) {
  if (pipeline < 2) return {};
  // A layer table without transformer blocks (a ResNet's) is cut between any layers: 2 and 4 chunks a device,
  // the screen refusing what its layers cannot hold.
  if (blocks <= 0) return {2, 4};
  std::vector<int> out;
  if (blocks % pipeline != 0) return out;
  for (const int chunks : divisors(blocks / pipeline)) {
    if (chunks > 1) out.push_back(chunks);
  }
  return out;
}

std::string PlanCandidate::placement() const {
  std::string out;
  for (const scenario::ParallelAxis axis : order) {
    out += (out.empty() ? "" : "-") + std::string(1, scenario::axis_entry(axis).name.front());
  }
  return out;
}

std::string PlanCandidate::label() const {
  const std::string placed = placement();
  return placed == "t-p-d" ? split_label() : split_label() + " placed " + placed;
}

std::vector<scenario::ParallelAxis> core_order(const scenario::ParallelismSpec& plan) {
  std::vector<scenario::ParallelAxis> out = plan.placement;
  std::erase_if(out, [](scenario::ParallelAxis axis) {
    return axis == scenario::ParallelAxis::Expert || axis == scenario::ParallelAxis::Context;
  });
  return out;
}

std::string PlanCandidate::split_label() const {
  std::string out = fmt::format("t{} p{}", tensor, pipeline);
  if (context > 1) out += fmt::format(" c{}", context);
  if (expert > 1) out += fmt::format(" e{}", expert);
  out += fmt::format(" d{} m{} z{} {}", data, microbatches, zero, scenario::to_string(recomputation));
  if (pipeline > 1) out += fmt::format(" {}", scenario::to_string(schedule));
  if (virtual_stages > 1) out += fmt::format(" v{}", virtual_stages);
  return out;
}

PlanCandidate placed(PlanCandidate candidate, const std::vector<scenario::ParallelAxis>& order) {
  std::vector<scenario::ParallelAxis> moved;
  for (const scenario::ParallelAxis axis : order) {
    if (core_degree(candidate, axis) > 1) moved.push_back(axis);
  }
  std::vector<scenario::ParallelAxis> out = kDefaultOrder;
  std::size_t next = 0;
  for (scenario::ParallelAxis& axis : out) {
    if (core_degree(candidate, axis) > 1 && next < moved.size()) axis = moved[next++];
  }
  candidate.order = std::move(out);
  return candidate;
}

PlanCandidate own_candidate(const scenario::Scenario& s) {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const PlanCandidate split{.devices = s.cluster.workers, .tensor = plan.tensor, .pipeline = plan.pipeline,
                            .context = plan.context, .expert = plan.expert, .data = plan.data,
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
  for (const int t : allowed(divisors(devices), space.tensor)) {
    for (const int p : allowed(divisors(devices / t), space.pipeline)) {
      for (const int c : context_degrees(devices / (t * p), shape, space.context)) {
        const int d = devices / (t * p * c);
        if (batch % d != 0) {
          ++undivided;
          if (on_undivided) {
            on_undivided(PlanCandidate{.devices = devices, .tensor = t, .pipeline = p, .context = c, .data = d});
          }
          continue;
        }
        for (const int e : expert_degrees(d, shape, space.expert)) {
          const PlanCandidate split{.devices = devices, .tensor = t, .pipeline = p, .context = c, .expert = e, .data = d};
          if (!add_choices(space, split, batch / d, shape.layers, visit)) return;
        }
      }
    }
  }
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
  plan.tensor = candidate.tensor;
  plan.pipeline = candidate.pipeline;
  plan.context = candidate.context;
  plan.expert = candidate.expert;
  plan.data = candidate.data;
  plan.microbatches = candidate.microbatches;
  plan.zero = candidate.zero;
  plan.schedule = candidate.schedule;
  plan.virtual_stages = candidate.virtual_stages;
  plan.sequence_parallel = candidate.tensor > 1;
  plan.placement = candidate.order;
  scenario::place_optional_axes(plan);
  s.training.recomputation = candidate.recomputation;
  s.training.batch_per_worker = static_cast<int>(batch / candidate.data);
}

std::string sweep_point_yaml(const PlanCandidate& candidate, std::int64_t batch, const scenario::Scenario& s) {
  std::string out = fmt::format("cluster.workers: {}", candidate.devices);
  if (!s.cluster.nodes.empty()) {
    out += fmt::format(", cluster.nodes.0.count: {}", candidate.devices / s.cluster.nodes.front().devices);
  }
  out += fmt::format(", training.parallelism.tensor: {}, training.parallelism.pipeline: {}, training.parallelism.data: {}",
                     candidate.tensor, candidate.pipeline, candidate.data);
  if (candidate.context > 1 || s.training.parallelism.context > 1) {
    out += fmt::format(", training.parallelism.context: {}", candidate.context);
  }
  if (candidate.expert > 1 || s.training.parallelism.expert > 1) {
    out += fmt::format(", training.parallelism.expert: {}", candidate.expert);
  }
  out += fmt::format(", training.parallelism.microbatches: {}, training.parallelism.zero: {}, "
                     "training.parallelism.schedule: {}, training.parallelism.virtual_stages: {}, "
                     "training.parallelism.sequence_parallel: {}, training.recomputation: {}",
                     candidate.microbatches, candidate.zero, scenario::to_string(candidate.schedule),
                     candidate.virtual_stages, candidate.tensor > 1, scenario::to_string(candidate.recomputation));
  std::string names;
  for (const scenario::ParallelAxis axis : candidate.order) {
    names += (names.empty() ? "" : ", ") + std::string(scenario::axis_entry(axis).name);
  }
  out += fmt::format(", training.parallelism.placement: [{}]", names);
  out += s.training.batch_declared_global ? fmt::format(", training.batch.global: {}", batch)
                                          : fmt::format(", training.batch.per_worker: {}", batch / candidate.data);
  return "{" + out + "}";
}

}  // namespace dtsim::app
