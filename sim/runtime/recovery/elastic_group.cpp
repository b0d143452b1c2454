#include "sim/runtime/recovery/elastic_group.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <string>

namespace dtsim::runtime {

ElasticGroup::ElasticGroup(const TrainingContext& context, int rank, Meter meter)
    : context_(&context),
      rank_(rank),
      meter_(meter),
      membership_(&context.failures->elastic),
      schedule_(context.scenario->failures, context.scenario->cluster.workers, context.scenario->seed) {
  join_current_membership();
}

void ElasticGroup::join_current_membership() {
  const std::vector<int>& alive = current();
  const auto position = static_cast<int>(std::find(alive.begin(), alive.end(), rank_) - alive.begin());
  const std::span<const int> all_machines = context_->setup->graph.worker_machines();
  machines_.clear();
  for (const int member : alive) machines_.push_back(all_machines[static_cast<std::size_t>(member)]);
  // A new group name per membership, so that no message of the old group is read by the new one.
  transport_ = std::make_unique<S4uTransport>(
      context_->network,
      GroupSpec{.name = "allreduce/" + std::to_string(generation_), .rank = position, .size = size(), .machines = machines_,
                .hosts = alive},
      meter_);
}

bool ElasticGroup::end_of_iteration(std::int64_t iteration) {
  if (iteration >= context_->setup->total_iterations) return true;
  namespace s4u = simgrid::s4u;
  membership_->meetings.at(generation_)->wait();
  const double now = s4u::Engine::get_clock();
  std::vector<int> survivors = current();
  std::vector<metrics::Failure> met;
  while (const std::optional<metrics::Failure> failure = schedule_.take_due(now)) {
    const auto it = std::find(survivors.begin(), survivors.end(), failure->worker);
    // A worker that already left cannot fail again.
    if (it == survivors.end()) continue;
    survivors.erase(it);
    met.push_back(*failure);
  }
  if (met.empty()) return true;
  if (survivors.empty()) {
    // The last worker failed too: nothing is left to train, and the job is lost. Every member reaches this
    // decision at the same meeting; the first one says so and stops the simulation.
    for (const metrics::Failure& failure : met) context_->observer->on_failure({failure.worker, failure.at_s, now, 0, 0.0, 0.0, true, false});
    context_->observer->on_job_lost(now);
    s4u::Actor::kill_all();
    return false;
  }
  // Every member takes the same decisions (the same schedule, asked at the same moment); the first of them
  // to get here writes them down and opens the next membership.
  if (membership_->members.size() == generation_ + 1) {
    for (const metrics::Failure& failure : met) {
      // Noticed at the end of the step it happened in, whose gradient was already averaged: nothing lost.
      context_->observer->on_failure({failure.worker, failure.at_s, now, 0, 0.0, 0.0, true, false});
    }
    membership_->members.push_back(survivors);
    membership_->meetings.push_back(s4u::Barrier::create(static_cast<unsigned>(survivors.size())));
  }
  ++generation_;
  if (std::find(survivors.begin(), survivors.end(), rank_) == survivors.end()) return false;
  join_current_membership();
  return true;
}

}  // namespace dtsim::runtime
