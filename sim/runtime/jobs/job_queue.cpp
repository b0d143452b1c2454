#include "sim/runtime/jobs/job_queue.hpp"

#include <algorithm>
#include <limits>

namespace dtsim::runtime {
namespace {

/// When the head can start by the running jobs' declared ends, and the devices beyond its needs then.
struct Reservation {
  double at_s = std::numeric_limits<double>::infinity();
  int spare = 0;
};

Reservation reserve(const WaitingJob& head, int free, std::vector<RunningJob> running, double now) {
  std::sort(running.begin(), running.end(),
            [](const RunningJob& a, const RunningJob& b) { return a.expected_end_s < b.expected_end_s; });
  int available = free;
  for (const RunningJob& job : running) {
    available += job.devices;
    if (available >= head.devices) return {std::max(now, job.expected_end_s), available - head.devices};
  }
  // Not by counts alone (its hosts are taken, or it does not fit the free machines): nothing may pass it.
  return {now, 0};
}

}  // namespace

std::vector<int> jobs_to_start(scenario::SchedulePolicy policy, double now, int free, std::span<const WaitingJob> queue,
                               std::vector<RunningJob> running, const std::function<bool(int job)>& place) {
  std::vector<int> out;
  std::size_t head = 0;
  for (; head < queue.size() && queue[head].devices <= free && place(queue[head].job); ++head) {
    out.push_back(queue[head].job);
    free -= queue[head].devices;
    running.push_back({queue[head].devices, now + queue[head].time_limit_s});
  }
  if (policy == scenario::SchedulePolicy::fifo || head >= queue.size()) return out;
  Reservation reservation = reserve(queue[head], free, running, now);
  for (std::size_t i = head + 1; i < queue.size(); ++i) {
    const WaitingJob& job = queue[i];
    const bool ends_in_time = now + job.time_limit_s <= reservation.at_s;
    if (job.devices > free || (!ends_in_time && job.devices > reservation.spare) || !place(job.job)) continue;
    out.push_back(job.job);
    free -= job.devices;
    if (!ends_in_time) reservation.spare -= job.devices;
  }
  return out;
}

}  // namespace dtsim::runtime
