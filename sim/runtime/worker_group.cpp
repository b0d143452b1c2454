#include "sim/runtime/worker_group.hpp"

#include "sim/scenario/parallel_axes.hpp"
#include "sim/scenario/parallel_layout.hpp"

#include <fmt/format.h>

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

}  // namespace

ParallelGroups::ParallelGroups(const TrainingContext& context, int rank, const Meter& meter)
    : line(along(context, rank, meter.carrying(Traffic::Pipeline), ParallelAxis::Pipeline)),
      replicas(along(context, rank, meter.carrying(Traffic::Data), ParallelAxis::Data)),
      tensor(along(context, rank, meter.carrying(Traffic::Tensor), ParallelAxis::Tensor)) {
  const scenario::ParallelismSpec& plan = context.scenario->training.parallelism;
  const scenario::ParallelCoordinates at = scenario::coordinates_of(plan, rank);
  replicas->set_meeting(replicas_meeting(plan, at, "replicas"));
  // Replica 0's rank stands for its replicas: its group's phases are timed from every replica's flows.
  const bool mirrored = context.mirroring == Mirroring::replicas;
  replicas->set_mirrored(mirrored);
  // Every replica's line of stages (and every tensor share's) sends the same messages at the same moments;
  // replica 0's lines alone when each of their messages moves with every replica's copy.
  line->set_meeting(AnalyticalMeeting{"pipeline", (mirrored ? 1 : plan.data) * plan.tensor * plan.pipeline,
                                      (at[ParallelAxis::Data] * plan.tensor + at[ParallelAxis::Tensor]) * plan.pipeline});
}

AnalyticalMeeting replicas_meeting(const scenario::ParallelismSpec& plan, const scenario::ParallelCoordinates& at,
                              const std::string& channels) {
  return {fmt::format("{}/{}", channels, at[scenario::ParallelAxis::Pipeline]), plan.data * plan.tensor,
          at[scenario::ParallelAxis::Tensor] * plan.data};
}

void gather_parameters(const TrainingSetup& setup, S4uTransport& replicas, std::size_t elements) {
  replicas.carry(Traffic::Zero);
  setup.collectives.allgather().run(replicas, comm::Block::sized(elements));
  replicas.carry(Traffic::Data);
}

}  // namespace dtsim::runtime
