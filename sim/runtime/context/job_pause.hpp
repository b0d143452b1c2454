#pragma once
// Preemption by checkpoint (cluster_run.hpp): a job asked to stop ends the iteration its furthest worker is in,
// writes a checkpoint, leaves its devices, and once the scheduler gives them back reads the checkpoint and goes
// on. Every worker of the job stops after the same iteration, so no collective is left half done: the iteration
// is fixed when the request comes, as the furthest any worker has begun, and no worker begins a later one before
// it has been through the pause.

#include "sim/runtime/observe/run_observer.hpp"

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <cstdint>
#include <functional>
#include <optional>

namespace dtsim::runtime {

class JobPause {
 public:
  /// `workers`: the job's worker actors, each of which calls at_iteration(); `checkpoint_s`: the time to write its
  /// checkpoint, and to read it back; `left`: told (on the last worker's actor) when every worker has written it.
  JobPause(int workers, double checkpoint_s, std::int64_t iterations, std::function<void()> left);

  /// Each worker, before it begins iteration `iteration` (from 1): pauses here when the job stops after the
  /// iteration before. `meter` is the worker's (the one that `reports` tells it of each checkpoint written); `drain`, when given, waits for
  /// the worker's own work still in flight (an averaging actor's) before the checkpoint is written.
  void at_iteration(std::int64_t iteration, const Meter& meter, bool reports, const std::function<void()>& drain = {});

  /// The scheduler: asks the job to stop. The iteration it stops after, or none when that is its last (it ends
  /// instead, and leaves its devices then).
  std::optional<std::int64_t> request();
  /// The scheduler: takes the request back if no worker has begun its checkpoint yet; whether it did.
  bool cancel();
  /// The scheduler, once every worker has left: the job's devices are its again.
  void resume();

  [[nodiscard]] double checkpoint_s() const { return checkpoint_s_; }

 private:
  int workers_;
  double checkpoint_s_;
  std::int64_t iterations_;
  std::function<void()> left_;
  std::int64_t furthest_ = 0;
  std::optional<std::int64_t> stop_after_;
  int writing_ = 0;  ///< workers that began the checkpoint
  int written_ = 0;
  std::int64_t resumes_ = 0;
  simgrid::s4u::MutexPtr mutex_ = simgrid::s4u::Mutex::create();
  simgrid::s4u::ConditionVariablePtr resumed_ = simgrid::s4u::ConditionVariable::create();
};

}  // namespace dtsim::runtime
