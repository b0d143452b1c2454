#include "sim/runtime/data_parallel/mirrored_ranks.hpp"

#include "sim/runtime/network/network_backend.hpp"
#include "sim/scenario/expert_grid.hpp"
#include "sim/scenario/parallel_axes.hpp"
#include "sim/scenario/parallel_layout.hpp"

#include <algorithm>

namespace dtsim::runtime {

Mirroring mirroring_of(const scenario::Scenario& scenario, const TrainingSetup& setup) {
  const scenario::ParallelismSpec& plan = scenario.training.parallelism;
  // Only a network that times phases at once gives every rank of a phase the same start and end; message by
  // message, a rank's rounds end when its own messages do.
  // The collectives must say where every rank sends (ring phases), so that one rank may time them for all.
  const bool alike = setup.mirror_ranks && network_backend(scenario.topology.network_model).times_phases_at_once() &&
                     setup.collectives.has(comm::Operation::allreduce) && setup.collectives.name_every_rank() &&
                     is_timing_only(setup.mode) && setup.sync->lock_step() && !setup.sync->steps_with_its_site() &&
                     scenario.unperturbed() && !scenario.failures.enabled;
  if (!alike) return Mirroring::none;
  if (setup.mode == RunMode::TimingDataParallel) return Mirroring::every_worker;
  // Routing drawn per expert group, or tokens dropped at a capacity, gives each device of an expert group its own
  // load. (A context group's devices hold the same layers and an even share of every sequence: replica 0's rank
  // stands for its context groups too.)
  if (plan.expert > 1 && !scenario.training.routing.even()) return Mirroring::none;
  // A rank of replica 0 stands for the groups of devices holding its experts among its replicas: those groups must
  // lie within its replicas (the other replica-0 ranks stand for the others). On the experts' own grid an expert
  // group may hold devices of several tensor ranks, whose stand-ins time its exchanges together; an expert-tensor
  // group cuts across tensor ranks, and is not stood for.
  if (scenario::on_expert_grid(plan)) {
    if (plan.expert_tensor > 1 || !scenario::holders_share_tensor_rank(plan)) return Mirroring::none;
  } else {
    const std::vector<scenario::ParallelAxis> dense = scenario::sharing_axes(plan, scenario::Weights::Dense);
    for (const scenario::ParallelAxis axis : scenario::sharing_axes(plan, scenario::Weights::Experts)) {
      if (std::find(dense.begin(), dense.end(), axis) == dense.end()) return Mirroring::none;
    }
  }
  // A model-parallel job: its tensor groups and pipelines differ within a replica, the replicas are alike (expert
  // groups among them, each exchanging its tokens, the devices holding the same experts reducing theirs).
  return scenario::replica_group(plan, 0).size() > 1 ? Mirroring::replicas : Mirroring::none;
}

StandIns::StandIns(const scenario::ParallelismSpec& plan, int workers, Mirroring mirroring)
    : stand_in_(static_cast<std::size_t>(workers)), stands_for_(static_cast<std::size_t>(workers)) {
  for (int rank = 0; rank < workers; ++rank) {
    const auto r = static_cast<std::size_t>(rank);
    switch (mirroring) {
      case Mirroring::none:
        stand_in_[r] = rank;
        stands_for_[r] = {rank};
        break;
      case Mirroring::every_worker:
        stand_in_[r] = 0;
        stands_for_[0].push_back(rank);
        break;
      case Mirroring::replicas: {
        // Every replica of the rank's share of the dense layers, by replica index: its expert group's devices too.
        std::vector<int> replicas = scenario::replica_group(plan, rank);
        stand_in_[r] = replicas.front();
        if (stand_in_[r] == rank) stands_for_[r] = std::move(replicas);
        break;
      }
    }
    if (!stands_for_[r].empty()) simulated_.push_back(rank);
  }
}

MirroredRanks::MirroredRanks(RunObserver& next, const StandIns& stand_ins, const std::vector<std::string>& host_names,
                             bool lanes)
    : next_(next), stand_ins_(stand_ins), host_names_(host_names), lanes_(lanes) {
  for (std::size_t rank = 0; rank < host_names.size(); ++rank) rank_of_host_.emplace(host_names[rank], static_cast<int>(rank));
}

void MirroredRanks::on_message(std::string_view from_host, Lane to, Span transfer, double bytes) {
  const auto sender = rank_of_host_.find(from_host);
  if (!lanes_ || sender == rank_of_host_.end() || to.host >= stand_ins_.workers() ||
      stand_ins_.stands_for(to.host).empty() || stand_ins_.stands_for(sender->second).empty()) {
    next_.on_message(from_host, to, transfer, bytes);
    return;
  }
  // Each replica's copy of the message, between the ranks that copy stands for.
  const std::vector<int>& senders = stand_ins_.stands_for(sender->second);
  const std::vector<int>& receivers = stand_ins_.stands_for(to.host);
  for (std::size_t copy = 0; copy < senders.size() && copy < receivers.size(); ++copy) {
    to.host = receivers[copy];
    next_.on_message(host_names_.at(static_cast<std::size_t>(senders[copy])), to, transfer, bytes);
  }
}

void MirroredRanks::on_compute(Lane lane, Span span) {
  for_each_worker(lane, [&](Lane each) { next_.on_compute(each, span); });
}

void MirroredRanks::on_communication(Lane lane, Span blocked, std::span<const Span> moving) {
  for_each_worker(lane, [&](Lane each) { next_.on_communication(each, blocked, moving); });
}

void MirroredRanks::on_wait(Lane lane, Span span) {
  for_each_worker(lane, [&](Lane each) { next_.on_wait(each, span); });
}

void MirroredRanks::on_sent(Lane lane, double bytes, std::int64_t messages) {
  for_each_worker(lane, [&](Lane each) { next_.on_sent(each, bytes, messages); });
}

void MirroredRanks::on_lane_done(Lane lane) {
  for_each_worker(lane, [&](Lane each) { next_.on_lane_done(each); });
}

void copy_stand_ins(metrics::RunRecord& record, const StandIns& stand_ins) {
  for (int rank = 0; rank < stand_ins.workers(); ++rank) {
    const int from = stand_ins.stand_in(rank);
    if (from == rank) continue;
    metrics::HostActivity& copy = record.hosts.at(static_cast<std::size_t>(rank));
    const std::string name = std::move(copy.name);
    const std::string role = std::move(copy.role);
    const int site = copy.site;
    copy = record.hosts.at(static_cast<std::size_t>(from));
    copy.name = name;
    copy.role = role;
    copy.site = site;
  }
}

}  // namespace dtsim::runtime
