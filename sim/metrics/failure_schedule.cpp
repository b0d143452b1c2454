#include "sim/metrics/failure_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace dtsim::metrics {

namespace {

/// Heap order: the earliest next failure on top, the lower worker first at the same time.
bool later(const FailureSchedule::RandomWorker& a, const FailureSchedule::RandomWorker& b) {
  return a.next_s != b.next_s ? a.next_s > b.next_s : a.worker > b.worker;
}

}  // namespace

FailureSchedule::FailureSchedule(const scenario::FailureSpec& spec, int workers, std::uint64_t seed, std::optional<int> only,
                                 std::size_t limit)
    : mtbf_s_(spec.mtbf_s.value_or(0.0)), limit_(limit), random_repair_s_(spec.random_repair_s) {
  for (const scenario::WorkerFailure& event : spec.events) {
    if (!only || event.worker == *only) fixed_.push_back({event.worker, event.at_s, event.repair_s});
  }
  // Stable: two failures at one time are taken in declaration order.
  std::stable_sort(fixed_.begin(), fixed_.end(), [](const Failure& a, const Failure& b) { return a.at_s < b.at_s; });
  if (!spec.mtbf_s) return;
  // One worker's schedule looks at that worker alone: every worker builds its own, O(p) in all.
  const int first = only ? *only : 0;
  const int end = only ? *only + 1 : workers;
  for (int rank = first; rank < end; ++rank) {
    const bool listed = spec.random_workers.empty() ||
                        std::find(spec.random_workers.begin(), spec.random_workers.end(), rank) != spec.random_workers.end();
    if (!listed) continue;
    RandomWorker process{rank, core::random_stream(seed, "failures/worker/" + std::to_string(rank)), 0.0};
    process.next_s = draw(process.engine);
    random_.push_back(std::move(process));
  }
  std::make_heap(random_.begin(), random_.end(), later);
}

double FailureSchedule::draw(core::RandomEngine& engine) const { return core::exponential(engine, mtbf_s_); }

std::optional<double> FailureSchedule::next_at() const {
  if (taken_ >= limit_) return std::nullopt;
  const RandomWorker* random = random_.empty() ? nullptr : &random_.front();
  if (fixed_.empty()) return random != nullptr ? std::optional<double>(random->next_s) : std::nullopt;
  return random != nullptr ? std::min(fixed_.front().at_s, random->next_s) : fixed_.front().at_s;
}

std::optional<Failure> FailureSchedule::take_due(double now) {
  if (taken_ >= limit_) return std::nullopt;
  const Failure* fixed = fixed_.empty() ? nullptr : &fixed_.front();
  const RandomWorker* random = random_.empty() ? nullptr : &random_.front();
  const bool take_fixed = fixed != nullptr && (random == nullptr || fixed->at_s <= random->next_s);
  if (take_fixed && fixed->at_s <= now) {
    const Failure out = *fixed;
    fixed_.erase(fixed_.begin());
    ++taken_;
    return out;
  }
  if (!take_fixed && random != nullptr && random->next_s <= now) {
    const Failure out{random->worker, random->next_s, random_repair_s_};
    // Each worker's process moves on alone: its next failure comes an exponential time after its repair.
    std::pop_heap(random_.begin(), random_.end(), later);
    RandomWorker& moved = random_.back();
    moved.next_s += random_repair_s_.value_or(0.0) + draw(moved.engine);
    std::push_heap(random_.begin(), random_.end(), later);
    ++taken_;
    return out;
  }
  return std::nullopt;
}

}  // namespace dtsim::metrics
