#include "sim/runtime/recovery/job_recovery.hpp"

#include "sim/runtime/recovery/failure_meetings.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Barrier.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>

namespace dtsim::runtime {

JobRecovery::JobRecovery(const TrainingContext& context, int rank, WorkerState state)
    : context_(&context),
      rank_(rank),
      state_(state),
      active_(context.failures->recovery == FailureRecovery::roll_back),
      schedule_(context.scenario->failures, context.scenario->cluster.workers, context.scenario->seed),
      // Without a checkpoint written yet, a failure restarts from the beginning.
      checkpoint_{0, 0.0, *state.parameters, (*state.optimizer)->clone(), *state.batches} {}

double JobRecovery::transfer_s() const {
  return checkpoint_transfer_s(context_->scenario->failures.storage_bytes_per_s, static_cast<std::size_t>(state_.parameters->size()),
                               **state_.optimizer);
}

std::int64_t JobRecovery::end_of_iteration(std::int64_t iteration) {
  if (!active_ || iteration >= context_->setup->total_iterations) return iteration;
  namespace s4u = simgrid::s4u;
  context_->failures->everyone->wait();
  const double now = s4u::Engine::get_clock();
  const scenario::FailureSpec& spec = context_->scenario->failures;
  std::optional<metrics::Failure> failure = schedule_.take_due(now);
  if (failure) {
    // Every failure since the last meeting is met by one rollback, which waits for the slowest repair.
    double repair = failure->repair_s.value_or(0.0);
    std::vector<metrics::Failure> met{*failure};
    while (auto more = schedule_.take_due(now)) {
      repair = std::max(repair, more->repair_s.value_or(0.0));
      met.push_back(*more);
    }
    const double read = checkpoint_.iteration > 0 ? transfer_s() : 0.0;
    const double downtime = spec.detection_s + repair + spec.restart_s + read;
    if (rank_ == 0) {
      for (std::size_t i = 0; i < met.size(); ++i) {
        metrics::FailureRecord record;
        record.worker = met[i].worker;
        record.at_s = met[i].at_s;
        record.noticed_s = now;
        // The rollback's cost is the first failure's; the others fell in the same step.
        record.lost_steps = i == 0 ? iteration - checkpoint_.iteration : 0;
        record.lost_s = i == 0 ? now - checkpoint_.written_s : 0.0;
        record.downtime_s = i == 0 ? downtime : 0.0;
        context_->observer->on_failure(record);
      }
    }
    s4u::this_actor::sleep_for(downtime);
    *state_.parameters = checkpoint_.parameters;
    *state_.optimizer = checkpoint_.optimizer->clone();
    *state_.batches = checkpoint_.batches;
    // The restored job starts its clock again: work after this moment is what a later failure loses.
    checkpoint_.written_s = s4u::Engine::get_clock();
    return checkpoint_.iteration;
  }
  if (spec.checkpoint_every && iteration % *spec.checkpoint_every == 0) {
    const double write = transfer_s();
    const double started = s4u::Engine::get_clock();
    s4u::this_actor::sleep_for(write);
    if (rank_ == 0) context_->observer->on_checkpoint(started, write);
    checkpoint_.iteration = iteration;
    checkpoint_.written_s = s4u::Engine::get_clock();
    checkpoint_.parameters = *state_.parameters;
    checkpoint_.optimizer = (*state_.optimizer)->clone();
    checkpoint_.batches = *state_.batches;
  }
  return iteration;
}

}  // namespace dtsim::runtime
