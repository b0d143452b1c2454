#include "sim/runtime/network/link_sharing.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <mutex>

namespace dtsim::runtime {
namespace s4u = simgrid::s4u;

std::shared_ptr<LinkSharing::Transfer> LinkSharing::begin(int job, double alone_end, double latency_s,
                                                         const DirectionLoads& loads) {
  const std::unique_lock lock(*mutex_);
  const double now = s4u::Engine::get_clock();
  retire_ended(now);
  const double alone_s = alone_end - now;
  const double moving_s = alone_s - std::clamp(latency_s, 0.0, alone_s);
  if (!(moving_s > 0.0)) return nullptr;
  auto transfer = std::make_shared<Transfer>();
  transfer->weight = 0.0;
  for (const auto& [direction, load] : loads) {
    if (!(load.bytes > 0.0)) continue;
    // Its average share of the direction while it moves bytes; a route's other links may hold it below.
    const double capacity = graph_->link(direction / 2).bandwidth.value();
    const double share = std::min(1.0, load.bytes / (moving_s * capacity));
    transfer->shares.push_back({direction, share});
    // Its flows' alone rate is their slowest direction's: where the fewest bytes a second pass each.
    transfer->weight = std::max(transfer->weight, std::max(load.flows, 1.0) / (share * capacity));
  }
  if (transfer->shares.empty()) return nullptr;
  transfer->job = job;
  transfer->alone_end = alone_end;
  transfer->latency = 1.0 - moving_s / alone_s;
  transfer->begun_s = now;
  // Another job's transfer begun now, as long alone and as much of it latency, runs its rounds in step with this
  // one (two identical jobs side by side): their bursts coincide. Any other's fall anywhere in this one's.
  const auto same = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); };
  for (const auto& other : in_flight_) {
    if (other->job != job && other->begun_s == now && same(other->alone_end, alone_end) &&
        same(other->latency, transfer->latency)) {
      transfer->cadence = other->cadence;
      break;
    }
  }
  if (transfer->cadence == 0) transfer->cadence = ++cadences_;
  in_flight_.push_back(transfer);
  reshare(now);
  return transfer;
}

double LinkSharing::wait(const std::shared_ptr<Transfer>& transfer, double alone_s) {
  std::unique_lock lock(*mutex_);
  double end = transfer->time_of(alone_s);
  while (s4u::Engine::get_clock() < end) {
    const std::cv_status woken = transfer->changed->wait_until(lock, end);
    const double again = transfer->time_of(alone_s);
    // Timed out at its end, which did not move meanwhile: the clock may fall short of it by its rounding.
    if (woken == std::cv_status::timeout && again <= end) break;
    end = again;
  }
  if (alone_s >= transfer->alone_end && !transfer->ended) retire(transfer, std::max(end, s4u::Engine::get_clock()));
  lock.unlock();
  s4u::this_actor::sleep_until(end);
  return end;
}

void LinkSharing::retire(const std::shared_ptr<Transfer>& transfer, double now) {
  transfer->ended = true;
  std::erase(in_flight_, transfer);
  reshare(now);
}

void LinkSharing::retire_ended(double now) {
  const auto before = in_flight_.size();
  std::erase_if(in_flight_, [now](const std::shared_ptr<Transfer>& transfer) {
    transfer->ended = transfer->ended || transfer->time_of(transfer->alone_end) <= now;
    return transfer->ended;
  });
  if (in_flight_.size() != before) reshare(now);
}

void LinkSharing::reshare(double now) {
  std::vector<topology::TransferLoad> loads;
  loads.reserve(in_flight_.size());
  for (const auto& transfer : in_flight_) {
    loads.push_back({transfer->job, transfer->shares, transfer->weight, 1.0 - transfer->latency, transfer->cadence});
  }
  const std::vector<double> rates = topology::shared_rates(loads);
  for (std::size_t i = 0; i < in_flight_.size(); ++i) {
    Transfer& transfer = *in_flight_[i];
    const double pace = topology::shared_pace(rates[i], transfer.latency);
    // Rounding alone must not move a transfer's end.
    if (std::abs(pace - transfer.pace) <= 1e-12 * transfer.pace) continue;
    transfer.anchor_alone_s = transfer.alone_time_at(now);
    transfer.anchor_s = now;
    transfer.pace = pace;
    transfer.disturbed = true;
    transfer.changed->notify_all();
  }
}

}  // namespace dtsim::runtime
