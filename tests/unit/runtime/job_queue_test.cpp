// FIFO and EASY backfill: the hand-built cases, and schedules drawn at random, each job running exactly its declared
// time, where backfill never starts the head of the queue later than the reservation it was given.

#include "sim/runtime/jobs/job_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace dtsim::runtime {
namespace {

using scenario::SchedulePolicy;

/// Places by count alone on a cluster of `free` devices.
struct CountingCluster {
  int free = 0;
  std::vector<WaitingJob> jobs;
  std::vector<int> placed;
  bool place(int job) {
    const int devices = jobs[static_cast<std::size_t>(job)].devices;
    if (devices > free) return false;
    free -= devices;
    placed.push_back(job);
    return true;
  }
};

TEST(JobQueue, BackfillStartsAShortJobInTheGapAndNoJobThatWouldDelayTheHead) {
  // 8 devices; one job of 6 runs until t = 10. The head needs all 8: its reservation is t = 10, with none spare.
  CountingCluster cluster{2, {{0, 8, 5.0}, {1, 2, 5.0}, {2, 2, 20.0}, {3, 1, 9.0}}, {}};
  const std::vector<RunningJob> running{{6, 10.0}};
  const auto place = [&](int job) { return cluster.place(job); };
  EXPECT_EQ(jobs_to_start(SchedulePolicy::fifo, 0.0, 2, cluster.jobs, running, place), std::vector<int>{});
  // Job 1 ends by t = 5, before the reservation; job 2 would run past it on devices the head needs; job 3 would
  // fit by time, but job 1 took the free devices.
  EXPECT_EQ(jobs_to_start(SchedulePolicy::backfill, 0.0, 2, cluster.jobs, running, place), std::vector<int>{1});
}

TEST(JobQueue, BackfillUsesTheDevicesTheHeadLeavesSpareAtItsReservation) {
  // 8 devices, 4 free; the running job of 4 ends at t = 10. The head needs 6: at t = 10, 2 are spare.
  CountingCluster cluster{4, {{0, 6, 5.0}, {1, 2, 100.0}, {2, 2, 100.0}}, {}};
  const std::vector<RunningJob> running{{4, 10.0}};
  EXPECT_EQ(jobs_to_start(SchedulePolicy::backfill, 0.0, 4, cluster.jobs, running, [&](int job) { return cluster.place(job); }),
            std::vector<int>{1});
}

TEST(JobQueue, FifoStartsInQueueOrderUntilTheFirstThatDoesNotFit) {
  CountingCluster cluster{8, {{0, 4, 1.0}, {1, 2, 1.0}, {2, 4, 1.0}, {3, 1, 1.0}}, {}};
  EXPECT_EQ(jobs_to_start(SchedulePolicy::fifo, 0.0, 8, cluster.jobs, {}, [&](int job) { return cluster.place(job); }),
            (std::vector<int>{0, 1}));
}

/// A whole schedule, each job running exactly its declared time: every job's start, under `policy`; and, under
/// backfill, the first reservation each job was given as the head (infinity if never the head while blocked).
struct Schedule {
  std::vector<double> start;
  std::vector<double> reserved;
};

Schedule simulate(SchedulePolicy policy, int devices, const std::vector<WaitingJob>& jobs, const std::vector<double>& arrival) {
  Schedule out{std::vector<double>(jobs.size(), -1.0), std::vector<double>(jobs.size(), 1e300)};
  std::vector<std::pair<double, int>> running;  // end, job
  double now = 0.0;
  int free = devices;
  for (int guard = 0; guard < 10'000; ++guard) {
    std::vector<WaitingJob> queue;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      if (out.start[j] < 0.0 && arrival[j] <= now) queue.push_back(jobs[j]);
    }
    // In arrival order, as the cluster's scheduler keeps it (all of one priority).
    std::stable_sort(queue.begin(), queue.end(), [&](const WaitingJob& a, const WaitingJob& b) {
      return arrival[static_cast<std::size_t>(a.job)] < arrival[static_cast<std::size_t>(b.job)];
    });
    std::vector<RunningJob> busy;
    for (const auto& [end, job] : running) busy.push_back({jobs[static_cast<std::size_t>(job)].devices, end});
    const auto place = [&](int job) {
      if (jobs[static_cast<std::size_t>(job)].devices > free) return false;
      free -= jobs[static_cast<std::size_t>(job)].devices;
      return true;
    };
    for (const int job : jobs_to_start(policy, now, free, queue, busy, place)) {
      out.start[static_cast<std::size_t>(job)] = now;
      running.emplace_back(now + jobs[static_cast<std::size_t>(job)].time_limit_s, job);
    }
    // The head still blocked: the reservation it holds now (its start by the running jobs' ends).
    for (const WaitingJob& head : queue) {
      if (out.start[static_cast<std::size_t>(head.job)] >= 0.0) continue;
      std::vector<std::pair<double, int>> ends = running;
      std::sort(ends.begin(), ends.end());
      int available = free;
      for (const auto& [end, job] : ends) {
        available += jobs[static_cast<std::size_t>(job)].devices;
        if (available >= head.devices) {
          out.reserved[static_cast<std::size_t>(head.job)] = std::min(out.reserved[static_cast<std::size_t>(head.job)], end);
          break;
        }
      }
      break;
    }
    double next = 1e300;
    for (const auto& [end, job] : running) next = std::min(next, end);
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      if (out.start[j] < 0.0 && arrival[j] > now) next = std::min(next, arrival[j]);
    }
    if (next == 1e300) break;
    now = next;
    std::erase_if(running, [&](const std::pair<double, int>& r) {
      if (r.first > now) return false;
      free += jobs[static_cast<std::size_t>(r.second)].devices;
      return true;
    });
  }
  return out;
}

TEST(JobQueue, BackfillNeverStartsTheHeadAfterItsReservationInDrawnSchedules) {
  std::mt19937_64 draws(11);
  for (int trial = 0; trial < 200; ++trial) {
    const int devices = 16;
    std::vector<WaitingJob> jobs;
    std::vector<double> arrival;
    for (int j = 0; j < 12; ++j) {
      jobs.push_back({j, 1 + static_cast<int>(draws() % 16), 1.0 + static_cast<double>(draws() % 20)});
      arrival.push_back(static_cast<double>(draws() % 10));
    }
    const Schedule fifo = simulate(SchedulePolicy::fifo, devices, jobs, arrival);
    const Schedule backfill = simulate(SchedulePolicy::backfill, devices, jobs, arrival);
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      ASSERT_GE(backfill.start[j], 0.0) << "trial " << trial << " job " << j;
      ASSERT_GE(fifo.start[j], 0.0);
      EXPECT_LE(backfill.start[j], backfill.reserved[j]) << "trial " << trial << " job " << j;
    }
  }
}

}  // namespace
}  // namespace dtsim::runtime
