#include "sim/runtime/recovery/shard_recovery.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

namespace dtsim::runtime {
namespace {

/// The shard's failures, as a failure schedule over "workers" numbered by shard.
scenario::FailureSpec shard_failures(const scenario::FailureSpec& spec) {
  scenario::FailureSpec out;
  out.enabled = spec.enabled;
  for (const scenario::ServerFailure& failure : spec.server_events) {
    out.events.push_back({failure.shard, failure.at_s, failure.repair_s, failure.where});
  }
  return out;
}

}  // namespace

ShardRecovery::ShardRecovery(const TrainingContext& context, int shard, models::Parameters* parameters,
                             std::unique_ptr<models::Optimizer>* optimizer)
    : context_(&context),
      shard_(shard),
      parameters_(parameters),
      optimizer_(optimizer),
      checkpoint_parameters_(*parameters),
      checkpoint_optimizer_((*optimizer)->clone()) {
  const scenario::FailureSpec& spec = context.scenario->failures;
  if (!spec.server_events.empty()) {
    schedule_.emplace(shard_failures(spec), context.scenario->training.shards, context.scenario->seed, shard);
  }
}

double ShardRecovery::transfer_s() const {
  return checkpoint_transfer_s(context_->scenario->failures.storage_bytes_per_s, static_cast<std::size_t>(parameters_->size()), **optimizer_);
}

void ShardRecovery::between_messages(std::int64_t updates) {
  if (!schedule_) return;
  namespace s4u = simgrid::s4u;
  const scenario::FailureSpec& spec = context_->scenario->failures;
  const double now = s4u::Engine::get_clock();
  if (const std::optional<metrics::Failure> failure = schedule_->take_due(now)) {
    const double read = checkpoint_updates_ > 0 ? transfer_s() : 0.0;
    metrics::FailureRecord record;
    record.worker = shard_;
    record.server = true;
    record.at_s = failure->at_s;
    record.noticed_s = now;
    record.lost_steps = updates - checkpoint_updates_;
    record.lost_s = now - checkpoint_s_;
    record.downtime_s = spec.detection_s + failure->repair_s.value_or(0.0) + spec.restart_s + read;
    context_->observer->on_failure(record);
    s4u::this_actor::sleep_for(record.downtime_s);
    *parameters_ = checkpoint_parameters_;
    *optimizer_ = checkpoint_optimizer_->clone();
    checkpoint_s_ = s4u::Engine::get_clock();
    // The restored updates count again towards the next checkpoint.
    checkpoint_updates_ = updates;
    return;
  }
  if (spec.checkpoint_every && updates >= checkpoint_updates_ + *spec.checkpoint_every) {
    const double write = transfer_s();
    const double started = s4u::Engine::get_clock();
    s4u::this_actor::sleep_for(write);
    context_->observer->on_checkpoint(started, write);
    checkpoint_updates_ = updates;
    checkpoint_s_ = s4u::Engine::get_clock();
    checkpoint_parameters_ = *parameters_;
    checkpoint_optimizer_ = (*optimizer_)->clone();
  }
}

}  // namespace dtsim::runtime
