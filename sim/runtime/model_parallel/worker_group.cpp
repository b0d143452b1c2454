#include "sim/runtime/model_parallel/worker_group.hpp"

#include "sim/scenario/expert_grid.hpp"
#include "sim/scenario/parallel_axes.hpp"
#include "sim/scenario/parallel_layout.hpp"

#include <fmt/format.h>

#include <set>
#include <vector>

namespace dtsim::runtime {

WorkerGroup::WorkerGroup(const TrainingContext& context, const std::string& name, std::vector<int> members,
                         int position, const Meter& meter)
    : members_(std::move(members)) {
  const std::span<const int> all = context.setup->graph.worker_machines();
  for (const int member : members_) machines_.push_back(all[static_cast<std::size_t>(member)]);
  transport_ = std::make_unique<S4uTransport>(context.network,
                                              GroupSpec{.name = name,
                                                        .rank = position,
                                                        .size = static_cast<int>(members_.size()),
                                                        .machines = machines_,
                                                        .hosts = members_},
                                              meter);
}

namespace {

using scenario::ParallelAxis;

WorkerGroup along(const TrainingContext& context, int rank, const Meter& meter, ParallelAxis axis) {
  const scenario::ParallelismSpec& plan = context.scenario->training.parallelism;
  const scenario::ParallelCoordinates at = scenario::coordinates_of(plan, rank);
  return {context, scenario::group_name(scenario::axis_entry(axis).groups, at, axis),
          scenario::group_along(plan, rank, axis), at[axis], meter};
}

/// `rank`'s group along one of the experts' axes: on their own grid, laid over its stage's devices; otherwise along
/// the grid axis it is carved out of the replicas as (`axis`).
WorkerGroup expert_group(const TrainingContext& context, int rank, const Meter& meter, scenario::ExpertGridAxis grid,
                         ParallelAxis axis) {
  const scenario::ParallelismSpec& plan = context.scenario->training.parallelism;
  if (!scenario::on_expert_grid(plan)) return along(context, rank, meter, axis);
  const scenario::ParallelCoordinates at = scenario::coordinates_of(plan, rank);
  return {context, scenario::expert_grid_name(scenario::axis_entry(axis).groups, plan, at, grid),
          scenario::expert_grid_group(plan, rank, grid),
          scenario::expert_grid_rank(scenario::expert_place(plan, at), grid), meter};
}

/// The devices holding the same routed experts as `rank`: on their own grid, its expert-data group; otherwise the
/// replicas of its expert share.
WorkerGroup expert_holders(const TrainingContext& context, int rank, const Meter& meter) {
  const scenario::ParallelismSpec& plan = context.scenario->training.parallelism;
  const scenario::ParallelCoordinates at = scenario::coordinates_of(plan, rank);
  if (scenario::on_expert_grid(plan)) {
    return {context, scenario::expert_grid_name("expert-replicas", plan, at, scenario::ExpertGridAxis::ExpertData),
            scenario::expert_grid_group(plan, rank, scenario::ExpertGridAxis::ExpertData),
            scenario::expert_place(plan, at).expert_data, meter};
  }
  const std::vector<ParallelAxis> holding = scenario::sharing_axes(plan, scenario::Weights::Experts);
  return {context, scenario::group_name("expert-replicas", at, holding), scenario::group_across(plan, rank, holding),
          scenario::index_across(plan, at, holding), meter};
}

/// Every replica of `rank`'s share of the dense layers (along the axes sharing them: context, expert and data).
WorkerGroup dense_replicas(const TrainingContext& context, int rank, const Meter& meter) {
  const scenario::ParallelismSpec& plan = context.scenario->training.parallelism;
  const scenario::ParallelCoordinates at = scenario::coordinates_of(plan, rank);
  const std::vector<ParallelAxis> axes = scenario::sharing_axes(plan, scenario::Weights::Dense);
  return {context, scenario::group_name(scenario::axis_entry(ParallelAxis::Data).groups, at, axes),
          scenario::replica_group(plan, rank), scenario::replica_index(plan, at), meter};
}

/// The groups `group_of` gives through each replica `rank` stands for (scenario::replica_group), each once, in the
/// order first met (its own first): the groups of one kind it stands for.
template <class GroupOf>
std::vector<std::vector<int>> groups_stood_for(const scenario::ParallelismSpec& plan, int rank, GroupOf group_of) {
  std::vector<std::vector<int>> out;
  std::set<int> met;
  for (const int replica : scenario::replica_group(plan, rank)) {
    if (met.contains(replica)) continue;
    std::vector<int> group = group_of(replica);
    met.insert(group.begin(), group.end());
    out.push_back(std::move(group));
  }
  return out;
}

/// How many ranks standing for others (replica 0's, scenario::replica_group) are among `members`.
int stand_ins_among(const scenario::ParallelismSpec& plan, const std::vector<int>& members) {
  std::set<int> stand_ins;
  for (const int member : members) stand_ins.insert(scenario::replica_group(plan, member).front());
  return static_cast<int>(stand_ins.size());
}

}  // namespace

ParallelGroups::ParallelGroups(const TrainingContext& context, int rank, const Meter& meter)
    : line(along(context, rank, meter.carrying(Traffic::Pipeline), ParallelAxis::Pipeline)),
      replicas(dense_replicas(context, rank, meter.carrying(Traffic::Data))),
      tensor(along(context, rank, meter.carrying(Traffic::Tensor), ParallelAxis::Tensor)) {
  const scenario::ParallelismSpec& plan = context.scenario->training.parallelism;
  const scenario::ParallelCoordinates at = scenario::coordinates_of(plan, rank);
  replicas->set_meeting(replicas_meeting(plan, at, "replicas"));
  if (plan.context > 1) sequence.emplace(along(context, rank, meter.carrying(Traffic::Context), ParallelAxis::Context));
  if (plan.expert > 1) {
    // An expert group's all-to-alls are timed alone (not with its sibling groups'): every-to-every steps of
    // one group are what the analytical network times from the links' loads (kFluidEveryToEveryRanks).
    experts.emplace(expert_group(context, rank, meter.carrying(Traffic::Expert), scenario::ExpertGridAxis::Expert,
                                 ParallelAxis::Expert));
  }
  if (plan.expert_tensor > 1) {
    // Its gathers and reduce-scatters are the tensor group's kind of traffic: a kind of its own would add columns
    // to the recorder's and the trace's files.
    expert_tensor.emplace(expert_group(context, rank, meter.carrying(Traffic::Tensor),
                                       scenario::ExpertGridAxis::ExpertTensor, ParallelAxis::ExpertTensor));
  }
  if (scenario::experts_apart(plan)) {
    expert_replicas.emplace(expert_holders(context, rank, meter.carrying(Traffic::Data)));
    (*expert_replicas)->set_meeting(expert_replicas_meeting(plan, at, "expert-replicas"));
  }
  // Replica 0's rank stands for its replicas: its group's phases are timed from every replica's flows; its context
  // group, its expert group, and the devices holding its experts, stand for every such group among its replicas.
  const bool mirrored = context.mirroring == Mirroring::replicas;
  replicas->set_mirrored(mirrored);
  if (mirrored && experts) {
    const auto expert_group_through = [&](int r) {
      return scenario::on_expert_grid(plan) ? scenario::expert_grid_group(plan, r, scenario::ExpertGridAxis::Expert)
                                            : scenario::group_along(plan, r, ParallelAxis::Expert);
    };
    experts->stand_for(groups_stood_for(plan, rank, expert_group_through),
                       stand_ins_among(plan, expert_group_through(rank)));
  }
  if (mirrored && sequence) {
    sequence->stand_for(
        groups_stood_for(plan, rank, [&](int r) { return scenario::group_along(plan, r, ParallelAxis::Context); }));
  }
  if (mirrored && expert_replicas && scenario::on_expert_grid(plan)) {
    // Each tensor rank's stand-in enters for the groups among its replicas (mirroring_of: they lie there), which
    // are not a block of the stage's groups by number: its entrant number is its tensor rank.
    expert_replicas->stand_for(groups_stood_for(
        plan, rank, [&](int r) { return scenario::expert_grid_group(plan, r, scenario::ExpertGridAxis::ExpertData); }));
    AnalyticalMeeting meeting = expert_replicas_meeting(plan, at, "expert-replicas");
    meeting.offset = at[ParallelAxis::Tensor] * (meeting.size / plan.tensor);
    (*expert_replicas)->set_meeting(std::move(meeting));
  } else if (mirrored && expert_replicas) {
    const std::vector<ParallelAxis> holding = scenario::sharing_axes(plan, scenario::Weights::Experts);
    expert_replicas->stand_for(
        groups_stood_for(plan, rank, [&](int r) { return scenario::group_across(plan, r, holding); }));
  }
  // Every replica's line of stages (and every tensor share's) sends the same messages at the same moments;
  // replica 0's lines alone when each of their messages moves with every replica's copy.
  line->set_meeting(AnalyticalMeeting{"pipeline", (mirrored ? 1 : plan.data * plan.context) * plan.tensor * plan.pipeline,
                                      (scenario::replica_index(plan, at) * plan.tensor + at[ParallelAxis::Tensor]) *
                                          plan.pipeline});
}

AnalyticalMeeting replicas_meeting(const scenario::ParallelismSpec& plan, const scenario::ParallelCoordinates& at,
                              const std::string& channels) {
  const int replicas = plan.data * plan.context;
  return {fmt::format("{}/{}", channels, at[scenario::ParallelAxis::Pipeline]), replicas * plan.tensor,
          at[scenario::ParallelAxis::Tensor] * replicas};
}

AnalyticalMeeting expert_replicas_meeting(const scenario::ParallelismSpec& plan, const scenario::ParallelCoordinates& at,
                                          const std::string& channels) {
  // The stage's groups numbered by tensor rank (where a tensor group's devices do not hold the same experts), expert
  // rank and expert-tensor rank, outermost first; each group's members consecutive.
  const scenario::ExpertPlace place = scenario::expert_place(plan, at);
  int group = place.expert * plan.expert_tensor + place.expert_tensor;
  if (!scenario::on_expert_grid(plan)) group += at[ParallelAxis::Tensor] * plan.expert * plan.expert_tensor;
  return {fmt::format("{}/{}", channels, at[ParallelAxis::Pipeline]), scenario::stage_devices(plan),
          group * scenario::expert_grid_degree(plan, scenario::ExpertGridAxis::ExpertData)};
}

void gather_parameters(const TrainingSetup& setup, S4uTransport& replicas, std::size_t elements) {
  replicas.carry(Traffic::Zero);
  setup.collectives.allgather().run(replicas, comm::Block::sized(elements));
  replicas.carry(Traffic::Data);
}

}  // namespace dtsim::runtime
