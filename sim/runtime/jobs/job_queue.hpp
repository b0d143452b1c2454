#pragma once
// Which waiting jobs start now: first in, first out, or EASY backfill (Lifka, "The ANL/IBM SP scheduling system",
// 1995; Slurm's sched/backfill works the same way): the head of the queue gets a reservation at the earliest moment
// enough devices will be free by the running jobs' declared times, and a later job starts now only if it fits now
// and either ends (by its own declared time) before that moment or uses devices the head will not need then.

#include "sim/scenario/scenario.hpp"

#include <functional>
#include <span>
#include <vector>

namespace dtsim::runtime {

struct WaitingJob {
  int job = 0;
  int devices = 0;
  double time_limit_s = 0.0;  ///< what it declares it needs (backfill only)
};

struct RunningJob {
  int devices = 0;
  double expected_end_s = 0.0;  ///< its start plus its declared time
};

/// The jobs of `queue` (in its order: the head first) that start at `now`, in the order they start. `free` is the
/// free devices; `place(job)` places a job if it fits (taking its devices) and says whether it did.
std::vector<int> jobs_to_start(scenario::SchedulePolicy policy, double now, int free, std::span<const WaitingJob> queue,
                               std::vector<RunningJob> running, const std::function<bool(int job)>& place);

}  // namespace dtsim::runtime
