#include "sim/runtime/failure_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace dtsim::runtime {

double checkpoint_transfer_s(const scenario::FailureSpec& spec, std::size_t parameters, const models::Optimizer& optimizer) {
  if (spec.storage_bytes_per_s <= 0.0) return 0.0;
  const double values = static_cast<double>(parameters) * (1.0 + optimizer.state_per_parameter());
  return values * sizeof(float) / spec.storage_bytes_per_s;
}

FailureSchedule::FailureSchedule(const scenario::FailureSpec& spec, int workers, std::uint64_t seed, std::optional<int> only)
    : mtbf_s_(spec.mtbf_s.value_or(0.0)), random_repair_s_(spec.random_repair_s) {
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
}

double FailureSchedule::draw(core::RandomEngine& engine) const { return -mtbf_s_ * std::log1p(-core::uniform01(engine)); }

std::optional<Failure> FailureSchedule::take_due(double now) {
  if (taken_ >= kFailureLimit) return std::nullopt;
  const Failure* fixed = fixed_.empty() ? nullptr : &fixed_.front();
  RandomWorker* random = nullptr;
  for (RandomWorker& process : random_) {
    if (random == nullptr || process.next_s < random->next_s) random = &process;
  }
  const bool take_fixed = fixed != nullptr && (random == nullptr || fixed->at_s <= random->next_s);
  if (take_fixed && fixed->at_s <= now) {
    const Failure out = *fixed;
    fixed_.erase(fixed_.begin());
    ++taken_;
    return out;
  }
  if (!take_fixed && random != nullptr && random->next_s <= now) {
    const Failure out{random->worker, random->next_s, random_repair_s_};
    random->next_s += random_repair_s_.value_or(0.0) + draw(random->engine);
    ++taken_;
    return out;
  }
  return std::nullopt;
}

}  // namespace dtsim::runtime
