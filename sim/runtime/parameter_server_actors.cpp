#include "sim/runtime/parameter_server_actors.hpp"

#include "sim/comm/parameter_server_protocol.hpp"
#include "sim/runtime/failure_schedule.hpp"
#include "sim/runtime/shard_recovery.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace dtsim::runtime {
namespace {

constexpr const char* kGroup = "parameter_server";

comm::Buffer to_buffer(const models::Parameters& values) {
  return comm::Buffer(std::vector<float>(values.data(), values.data() + values.size()));
}

/// The time covered by the union of [start, finish] intervals.
double covered(std::vector<std::pair<double, double>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double total = 0.0;
  double until = -1.0;
  for (const auto& [start, finish] : intervals) {
    const double from = std::max(start, until);
    if (finish > from) {
      total += finish - from;
      until = finish;
    }
  }
  return total;
}

}  // namespace

ParameterServerWorker::ParameterServerWorker(TrainingContext context, int rank)
    : context_(std::move(context)), rank_(rank) {}

void ParameterServerWorker::operator()() {
  const TrainingSetup& setup = *context_.setup;
  metrics::HostActivity& activity = context_.record->hosts[static_cast<std::size_t>(rank_)];
  const int workers = context_.scenario->cluster.workers;
  const int shards = context_.scenario->training.shards;
  S4uTransport transport(kGroup, rank_, workers + shards, activity);
  transport.set_traffic(context_.traffic);
  std::vector<int> servers(static_cast<std::size_t>(shards));
  std::iota(servers.begin(), servers.end(), workers);
  models::BatchStream batches(setup.schedule, rank_);
  models::Parameters parameters = setup.model->initial_parameters();
  models::Parameters gradient;

  const sync::SyncStrategy& strategy = *setup.sync;
  const std::unique_ptr<models::Optimizer> optimizer = make_optimizer(context_, setup.model->parameter_count());
  models::Parameters accumulated = models::Parameters::Zero(parameters.size());
  std::int64_t held = 0;  // steps accumulated since the last push

  // This worker's failures: it dies during a step, and comes back after its repair to compute that step
  // again, or leaves for good (the servers go on without it).
  std::optional<FailureSchedule> failures;
  if (context_.scenario->failures.enabled) failures.emplace(context_.scenario->failures, workers, context_.scenario->seed, rank_);

  if (rank_ == 0) after_iteration(context_, 0, parameters);
  for (std::int64_t iteration = 1; iteration <= setup.total_iterations; ++iteration) {
    const double step_started = simgrid::s4u::Engine::get_clock();
    compute_gradient(context_, activity, rank_, parameters, batches.next(), gradient);
    if (failures) {
      if (const std::optional<Failure> failure = failures->take_due(simgrid::s4u::Engine::get_clock())) {
        const double now = simgrid::s4u::Engine::get_clock();
        metrics::FailureRecord record{rank_, failure->at_s, now, 1 + held, now - step_started, 0.0, !failure->repair_s};
        if (!failure->repair_s) {
          context_.record->failures.push_back(record);
          comm::leave(transport, servers);
          return;
        }
        record.downtime_s = *failure->repair_s + context_.scenario->failures.restart_s;
        context_.record->failures.push_back(record);
        simgrid::s4u::this_actor::sleep_for(record.downtime_s);
        accumulated.setZero();
        held = 0;
        --iteration;  // the step it died in, computed again
        continue;
      }
    }
    if (!strategy.accumulates_locally()) {
      const comm::Buffer pulled = comm::push_and_pull(transport, servers, to_buffer(gradient));
      parameters = Eigen::Map<const models::Parameters>(pulled.values().data(), static_cast<Eigen::Index>(pulled.size()));
    } else {
      // Approximate: step locally, and push the accumulated gradients only when they make a significant
      // update (or have waited long enough, or training ends).
      optimizer->apply(parameters, gradient);
      accumulated += gradient;
      ++held;
      charge_compute(activity, optimizer->flops(static_cast<std::size_t>(parameters.size())) +
                                   static_cast<double>(parameters.size()));
      const double norm = parameters.norm();
      const double relative =
          context_.scenario->training.optimizer.learning_rate * accumulated.norm() / (norm > 0.0 ? norm : 1.0);
      const bool last = iteration == setup.total_iterations;
      const bool significant = strategy.send_now(relative, held);
      if (significant || last) {
        if (context_.observer != nullptr) context_.observer->on_push(rank_, relative, held, last && !significant);
        const comm::Buffer pulled = comm::push_and_pull(transport, servers, to_buffer(accumulated), held);
        parameters = Eigen::Map<const models::Parameters>(pulled.values().data(), static_cast<Eigen::Index>(pulled.size()));
        accumulated.setZero();
        held = 0;
      }
    }
    if (rank_ == 0) after_iteration(context_, iteration, parameters);
  }
}

ParameterServer::ParameterServer(TrainingContext context, int shard) : context_(std::move(context)), shard_(shard) {}

void ParameterServer::operator()() {
  const TrainingSetup& setup = *context_.setup;
  const sync::SyncStrategy& strategy = *setup.sync;
  const int workers = context_.scenario->cluster.workers;
  const int shards = context_.scenario->training.shards;
  metrics::HostActivity& activity = context_.record->hosts[static_cast<std::size_t>(workers + shard_)];
  S4uTransport transport(kGroup, workers + shard_, workers + shards, activity);
  transport.set_traffic(context_.traffic);
  const models::Parameters initial = setup.model->initial_parameters();
  const comm::ChunkBounds range = comm::chunk_bounds(static_cast<std::size_t>(initial.size()), shards, shard_);
  models::Parameters parameters =
      initial.segment(static_cast<Eigen::Index>(range.begin), static_cast<Eigen::Index>(range.end - range.begin));
  const auto count = static_cast<double>(parameters.size());
  std::unique_ptr<models::Optimizer> optimizer = make_optimizer(context_, static_cast<std::size_t>(parameters.size()));
  ShardRecovery recovery(context_, shard_, &parameters, &optimizer);
  const auto p = static_cast<std::size_t>(workers);
  const std::int64_t iterations = setup.total_iterations;
  // Staleness and update counts are recorded by the first shard's server; the others see the same.
  const bool records = shard_ == 0;

  std::int64_t version = 0;                    // complete clocks (by clock) or applied gradients (on arrival)
  std::vector<std::int64_t> pushed(p, 0);      // gradients received from each worker
  std::vector<std::int64_t> read_version(p, 0);  // the version each worker's parameters have
  std::vector<bool> deferred(p, false);        // a worker whose reply waits for the staleness bound
  struct Clock {
    std::vector<comm::Buffer> gradients;  // by worker; empty for a worker that left before the clock
    std::size_t arrived = 0;
  };
  std::map<std::int64_t, Clock> by_clock;
  struct Scaled {
    comm::Buffer gradient;
    double scale = 1.0;  // on the learning rate
  };
  std::vector<Scaled> gathered;  // on arrival: gradients waiting to make up one update
  // One update from the gathered gradients: their mean weighted by their learning-rate factors, applied at
  // the mean factor. With plain SGD this is each gradient at its own rate (lr/n sum s_i g_i); a lone gradient
  // passes unchanged at its factor, and factors of 1 give the plain mean at the plain rate, bit for bit.
  struct Combined {
    comm::Buffer gradient;
    double rate_scale = 1.0;
  };
  const auto combine = [&](std::vector<Scaled>& list) -> Combined {
    if (list.size() == 1) return {std::move(list.front().gradient), list.front().scale};
    std::vector<float> sum(static_cast<std::size_t>(parameters.size()), 0.0F);
    double total = 0.0;
    for (const Scaled& item : list) {
      const auto scale = static_cast<float>(item.scale);
      total += item.scale;
      const std::span<const float> values = item.gradient.values();
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += scale * values[i];
    }
    const float share = 1.0F / static_cast<float>(total);
    for (float& value : sum) value *= share;
    return {comm::Buffer(std::move(sum)), total / static_cast<double>(list.size())};
  };
  std::vector<std::unique_ptr<comm::Pending>> receiving(p);
  // The last reply to each worker. A worker pushes again only after it has received its reply, so the
  // previous one is complete when the next is posted; holding every reply to the end made SimGrid slow
  // down with their number.
  std::vector<std::unique_ptr<comm::Pending>> replies(p);
  for (std::size_t w = 0; w < p; ++w) receiving[w] = transport.post_recv(static_cast<int>(w), 0);

  // Lock-free (Hogwild) on arrival: an update's values take effect at once and its time passes in the
  // background, so the reply and the next arrivals do not wait for it; concurrent updates share the
  // server's processor. Under a lock (and by clock) the server computes each update before anything else.
  const bool lock_free = strategy.apply() == sync::Apply::OnArrival && !strategy.locked();
  std::vector<simgrid::s4u::ExecPtr> updating;
  std::vector<std::pair<double, double>> updated;  // [start, finish] of finished background updates
  const auto collect_finished = [&] {
    std::erase_if(updating, [&](const simgrid::s4u::ExecPtr& exec) {
      if (!exec->test()) return false;
      updated.emplace_back(exec->get_start_time(), exec->get_finish_time());
      return true;
    });
  };
  const auto apply = [&](const comm::Buffer& gradient, double extra_flops, double rate_scale = 1.0) {
    optimizer->begin_update(rate_scale);
    optimizer->update(std::span<float>(parameters.data(), static_cast<std::size_t>(parameters.size())), gradient.values(), 0);
    const double flops = extra_flops + optimizer->flops(static_cast<std::size_t>(count));
    if (lock_free) {
      collect_finished();
      updating.push_back(simgrid::s4u::this_actor::exec_async(flops));
    } else {
      charge_compute(activity, flops);
    }
    if (records) ++context_.record->updates_applied;
  };
  // The gathered gradients as one update; combining several costs a multiply and an add per parameter each.
  const auto apply_gathered = [&] {
    const std::size_t combined = gathered.size();
    const Combined update = combine(gathered);
    apply(update.gradient, combined > 1 ? 2.0 * count * static_cast<double>(combined) : 0.0, update.rate_scale);
    gathered.clear();
  };
  const auto reply = [&](std::size_t w) {
    read_version[w] = version;
    deferred[w] = false;
    if (replies[w]) static_cast<void>(replies[w]->wait());
    replies[w] = transport.post_send(static_cast<int>(w), to_buffer(parameters), 0);
  };
  // A worker that has pushed k gradients may compute its next once every clock up to k - bound is applied.
  int bound = strategy.staleness_bound();
  bool someone_waited = false;  // since the last complete clock
  const auto may_go_on = [&](std::size_t w) { return bound < 0 || version >= pushed[w] - bound; };

  std::vector<bool> left(p, false);
  // The gradients a clock needs: one from every worker that has not left before reaching it.
  const auto expected = [&](std::int64_t clock) {
    std::size_t n = 0;
    for (std::size_t v = 0; v < p; ++v) n += !left[v] || pushed[v] >= clock ? 1 : 0;
    return n;
  };
  const auto complete_clocks = [&] {
    // Clocks complete in order: a worker cannot push clock k + 1 before its clock k reply, which needs
    // clock k - bound complete; so only the oldest open clock can become complete.
    while (!by_clock.empty() && by_clock.begin()->first == version + 1 &&
           by_clock.begin()->second.arrived == expected(by_clock.begin()->first)) {
      // Averaging n gradients, in rank order: n-1 additions and one scaling per parameter.
      std::vector<comm::Buffer> gradients;
      for (comm::Buffer& gradient : by_clock.begin()->second.gradients) {
        if (gradient.size() > 0) gradients.push_back(std::move(gradient));
      }
      apply(comm::mean_of(gradients), count * static_cast<double>(gradients.size()));
      by_clock.erase(by_clock.begin());
      ++version;
      bound = strategy.next_staleness_bound(bound, someone_waited);
      someone_waited = false;
    }
    for (std::size_t v = 0; v < p; ++v) {
      if (!deferred[v]) continue;
      if (may_go_on(v)) {
        reply(v);
      } else {
        someone_waited = true;
      }
    }
  };

  const bool counted = strategy.accumulates_locally();
  for (;;) {
    recovery.between_messages(version);
    std::vector<comm::Pending*> open;
    std::vector<std::size_t> owner;
    for (std::size_t w = 0; w < p; ++w) {
      if (receiving[w]) {
        open.push_back(receiving[w].get());
        owner.push_back(w);
      }
    }
    if (open.empty()) break;
    const std::size_t w = owner[transport.wait_any(open)];
    comm::Buffer gradient = receiving[w]->wait();
    if (comm::is_leave(gradient)) {
      // A worker that died for good: no reply, no more gradients; clocks complete without it.
      left[w] = true;
      receiving[w] = nullptr;
      deferred[w] = false;
      complete_clocks();
      continue;
    }
    std::int64_t steps = 1;
    if (counted) std::tie(gradient, steps) = comm::take_steps(gradient);
    pushed[w] += steps;
    const std::int64_t clock = pushed[w];
    receiving[w] = clock < iterations ? transport.post_recv(static_cast<int>(w), 0) : nullptr;

    if (strategy.apply() == sync::Apply::OnArrival) {
      const std::int64_t staleness = version - read_version[w];
      if (records) ++context_.record->staleness[staleness];
      gathered.push_back({std::move(gradient), strategy.learning_rate_scale(staleness)});
      if (static_cast<int>(gathered.size()) == strategy.accumulate()) {
        // For tests: the learning-rate factor this update really applies, as its step over the step the
        // same optimizer (a copy, same state) takes at the plain rate.
        const bool measure =
            records && context_.observer != nullptr && context_.observer->measures_updates() && gathered.size() == 1;
        models::Parameters plain_step;
        if (measure) {
          models::Parameters plain = parameters;
          const std::unique_ptr<models::Optimizer> copy = optimizer->clone();
          copy->begin_update();
          copy->update(std::span<float>(plain.data(), static_cast<std::size_t>(plain.size())),
                       gathered.front().gradient.values(), 0);
          plain_step = parameters - plain;
        }
        const models::Parameters before = measure ? parameters : models::Parameters();
        apply_gathered();
        if (measure) context_.observer->on_update_applied(staleness, (before - parameters).norm() / plain_step.norm());
        ++version;
      }
      reply(w);
      continue;
    }
    // By clock: the gradient was computed on the parameters of version read_version[w], clock - 1 - that
    // many clocks behind.
    if (records) ++context_.record->staleness[clock - 1 - read_version[w]];
    Clock& open_clock = by_clock[clock];
    if (open_clock.gradients.empty()) open_clock.gradients.resize(p);
    open_clock.gradients[w] = std::move(gradient);
    ++open_clock.arrived;
    deferred[w] = true;
    complete_clocks();
  }
  if (!gathered.empty()) apply_gathered();
  for (auto& exec : updating) exec->wait();
  collect_finished();
  activity.compute_s += covered(std::move(updated));
  if (records && context_.scenario->failures.enabled) context_.record->gradients_by_worker = pushed;
  for (auto& sent : replies) {
    if (sent) static_cast<void>(sent->wait());
  }
}

}  // namespace dtsim::runtime
