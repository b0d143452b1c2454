#include "sim/runtime/data_parallel/server_shard.hpp"

#include "sim/comm/parameter_server_protocol.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <algorithm>
#include <span>
#include <tuple>

namespace dtsim::runtime {
namespace {

models::Parameters shard_of(const TrainingContext& context, int shard) {
  const models::Parameters initial = context.setup->model().initial_parameters();
  const comm::ChunkBounds range =
      comm::chunk_bounds(static_cast<std::size_t>(initial.size()), context.scenario->training.shards, shard);
  return initial.segment(static_cast<Eigen::Index>(range.begin), static_cast<Eigen::Index>(range.end - range.begin));
}

}  // namespace

ServerShard::ServerShard(const TrainingContext& context, int shard)
    : context_(context),
      setup_(*context.setup),
      strategy_(*context.setup->sync),
      workers_(static_cast<std::size_t>(context.scenario->cluster.workers)),
      meter_(context.meter(static_cast<int>(workers_) + shard)),
      updates_meter_(context.meter(static_cast<int>(workers_) + shard, 1, true)),
      transport_(context.network,
                 {.name = kParameterServerGroup,
                  .rank = static_cast<int>(workers_) + shard,
                  .size = static_cast<int>(workers_) + context.scenario->training.shards},
                 meter_),
      parameters_(shard_of(context, shard)),
      count_(static_cast<double>(parameters_.size())),
      optimizer_(make_optimizer(context, static_cast<std::size_t>(parameters_.size()))),
      recovery_(context, shard, &parameters_, &optimizer_),
      records_(shard == 0),
      lock_free_(strategy_.apply() == sync::Apply::OnArrival && !strategy_.locked()),
      pushed_(workers_, 0),
      read_version_(workers_, 0),
      bound_(strategy_.staleness_bound()),
      inbox_(transport_.open_inbox()) {
  for (std::size_t w = 0; w < workers_; ++w) inbox_->post(static_cast<int>(w));
}

void ServerShard::serve() {
  const bool counted = strategy_.accumulates_locally();
  while (std::optional<Arrival> message = next_message()) {
    const auto w = static_cast<std::size_t>(message->from);
    comm::Buffer& gradient = message->message;
    if (comm::is_leave(gradient)) {
      on_leave(w);
      continue;
    }
    std::int64_t steps = 1;
    if (counted) std::tie(gradient, steps) = comm::take_steps(gradient);
    pushed_[w] += steps;
    const std::int64_t clock = pushed_[w];
    if (clock < setup_.total_iterations) inbox_->post(message->from);
    if (strategy_.apply() == sync::Apply::OnArrival) {
      on_arrival(w, std::move(gradient));
    } else {
      on_clock(w, std::move(gradient), clock);
    }
  }
  finish();
}

std::optional<Arrival> ServerShard::next_message() {
  recovery_.between_messages(version_);
  return inbox_->next();
}

void ServerShard::on_leave(std::size_t worker) {
  // A worker that died for good: no reply, no more gradients; clocks complete without it.
  left_.push_back(worker);
  deferred_.erase(worker);
  complete_clocks(std::nullopt);
}

void ServerShard::on_arrival(std::size_t worker, comm::Buffer gradient) {
  const std::int64_t staleness = version_ - read_version_[worker];
  if (records_) context_.observer->on_gradient_staleness(staleness);
  std::vector<float> answer;
  if (const std::optional<double> flops = strategy_.on_server_receive(
          std::span<float>(parameters_.data(), static_cast<std::size_t>(parameters_.size())), gradient.values(), answer,
          context_.scenario->training.optimizer.learning_rate)) {
    // The strategy's own update: computed before the reply, which carries what it says.
    charge_compute(meter_, *flops);
    if (records_) context_.observer->on_update();
    ++version_;
    send_reply(worker, comm::Buffer(std::move(answer)));
    return;
  }
  gathered_.push_back({std::move(gradient), strategy_.learning_rate_scale(staleness)});
  if (static_cast<int>(gathered_.size()) == strategy_.accumulate()) {
    const bool measure = records_ && context_.observer->measures_updates() && gathered_.size() == 1;
    const models::Parameters plain = measure ? plain_step(gathered_.front().gradient) : models::Parameters();
    const models::Parameters before = measure ? parameters_ : models::Parameters();
    apply_gathered();
    if (measure) context_.observer->on_update_measured(staleness, (before - parameters_).norm() / plain.norm());
    ++version_;
  }
  reply(worker);
}

void ServerShard::on_clock(std::size_t worker, comm::Buffer gradient, std::int64_t clock) {
  // The gradient was computed on the parameters of version read_version_[worker], clock - 1 - that many
  // clocks behind.
  if (records_) context_.observer->on_gradient_staleness(clock - 1 - read_version_[worker]);
  Clock& open_clock = by_clock_[clock];
  if (open_clock.gradients.empty()) open_clock.gradients.resize(workers_);
  open_clock.gradients[worker] = std::move(gradient);
  ++open_clock.arrived;
  deferred_.insert(worker);
  complete_clocks(worker);
}

void ServerShard::complete_clocks(std::optional<std::size_t> arrived) {
  // Clocks complete in order: a worker cannot push clock k + 1 before its clock k reply, which needs clock
  // k - bound complete; so only the oldest open clock can become complete.
  while (!by_clock_.empty() && by_clock_.begin()->first == version_ + 1 &&
         by_clock_.begin()->second.arrived == expected(by_clock_.begin()->first)) {
    // Averaging n gradients, in rank order: n-1 additions and one scaling per parameter.
    std::vector<comm::Buffer> gradients;
    for (comm::Buffer& gradient : by_clock_.begin()->second.gradients) {
      if (gradient.size() > 0) gradients.push_back(std::move(gradient));
    }
    apply(comm::mean_of(gradients), count_ * static_cast<double>(gradients.size()));
    by_clock_.erase(by_clock_.begin());
    ++version_;
    bound_ = strategy_.next_staleness_bound(bound_, someone_waited_);
    someone_waited_ = false;
    arrived.reset();
  }
  // Without a complete clock, the workers that waited before still wait, and already count in someone_waited_.
  if (arrived) {
    if (may_go_on(*arrived)) {
      reply(*arrived);
    } else {
      someone_waited_ = true;
    }
    return;
  }
  for (auto next = deferred_.begin(); next != deferred_.end();) {
    const std::size_t v = *next++;  // a reply takes v out of deferred_
    if (may_go_on(v)) {
      reply(v);
    } else {
      someone_waited_ = true;
    }
  }
}

void ServerShard::apply(const comm::Buffer& gradient, double extra_flops, double rate_scale) {
  optimizer_->begin_update(rate_scale);
  optimizer_->update(std::span<float>(parameters_.data(), static_cast<std::size_t>(parameters_.size())),
                     gradient.values(), 0);
  const double flops = extra_flops + optimizer_->flops(static_cast<std::size_t>(count_));
  if (lock_free_) {
    collect_finished();
    updating_.push_back(start_compute(updates_meter_, flops));
  } else {
    charge_compute(meter_, flops);
  }
  if (records_) context_.observer->on_update();
}

void ServerShard::apply_gathered() {
  // Combining several gradients costs a multiply and an add per parameter each.
  const std::size_t combined = gathered_.size();
  const Combined update = combine();
  apply(update.gradient, combined > 1 ? 2.0 * count_ * static_cast<double>(combined) : 0.0, update.rate_scale);
  gathered_.clear();
}

ServerShard::Combined ServerShard::combine() {
  // Their mean weighted by their learning-rate factors, applied at the mean factor. With plain SGD this is
  // each gradient at its own rate (lr/n sum s_i g_i); a lone gradient passes unchanged at its factor, and
  // factors of 1 give the plain mean at the plain rate, bit for bit.
  if (gathered_.size() == 1) return {std::move(gathered_.front().gradient), gathered_.front().scale};
  std::vector<float> sum(static_cast<std::size_t>(parameters_.size()), 0.0F);
  double total = 0.0;
  for (const Scaled& item : gathered_) {
    const auto scale = static_cast<float>(item.scale);
    total += item.scale;
    const std::span<const float> values = item.gradient.values();
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += scale * values[i];
  }
  const float share = 1.0F / static_cast<float>(total);
  for (float& value : sum) value *= share;
  return {comm::Buffer(std::move(sum)), total / static_cast<double>(gathered_.size())};
}

models::Parameters ServerShard::plain_step(const comm::Buffer& gradient) const {
  models::Parameters plain = parameters_;
  const std::unique_ptr<models::Optimizer> copy = optimizer_->clone();
  copy->begin_update();
  copy->update(std::span<float>(plain.data(), static_cast<std::size_t>(plain.size())), gradient.values(), 0);
  return parameters_ - plain;
}

void ServerShard::reply(std::size_t worker) { send_reply(worker, to_buffer(parameters_)); }

void ServerShard::send_reply(std::size_t worker, comm::Buffer contents) {
  read_version_[worker] = version_;
  deferred_.erase(worker);
  inbox_->reply(static_cast<int>(worker), std::move(contents));
}

bool ServerShard::may_go_on(std::size_t worker) const {
  return bound_ < 0 || version_ >= pushed_[worker] - bound_;
}

std::size_t ServerShard::expected(std::int64_t clock) const {
  // One gradient from every worker that has not left before reaching the clock.
  std::size_t n = workers_;
  for (const std::size_t v : left_) n -= pushed_[v] < clock ? 1 : 0;
  return n;
}

void ServerShard::collect_finished() {
  // Testing one is a call into SimGrid. Updates that began earlier mostly end earlier (they share the
  // processor, and are of one size but for the gathered ones), so the oldest are tested until one still runs;
  // testing every one cost as many calls as updates were running, at every update.
  while (!updating_.empty() && updating_.front()->test()) updating_.pop_front();
}

void ServerShard::finish() {
  if (!gathered_.empty()) apply_gathered();
  for (auto& exec : updating_) exec->wait();
  updating_.clear();
  context_.observer->on_lane_done(updates_meter_.lane());
  if (records_ && context_.scenario->failures.enabled) context_.observer->on_gradients_received(pushed_);
  inbox_->close();
}

}  // namespace dtsim::runtime
