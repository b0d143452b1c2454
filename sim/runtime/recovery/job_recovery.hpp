#pragma once
// Failures of a lock-step allreduce job (BSP, local SGD): at the end of every iteration the workers meet;
// a failure since the last meeting rolls every worker back to the last checkpoint (the beginning without
// one) after the repair, the restart and reading the checkpoint back; otherwise, when one is due, they
// write a checkpoint. Each worker holds its own JobRecovery: built from the same seed and asked at the
// same simulated moment, they take the same decisions.

#include "models/batch_schedule.hpp"
#include "models/optimizer.hpp"
#include "sim/metrics/failure_schedule.hpp"
#include "sim/runtime/context/training_context.hpp"
#include "sim/runtime/recovery/checkpoint_transfer.hpp"

#include <memory>
#include <optional>

namespace dtsim::runtime {

/// What a worker restores from a checkpoint.
struct WorkerState {
  models::Parameters* parameters = nullptr;
  std::unique_ptr<models::Optimizer>* optimizer = nullptr;
  models::BatchStream* batches = nullptr;
};

class JobRecovery {
 public:
  JobRecovery(const TrainingContext& context, int rank, WorkerState state);

  /// Whether the run has failures to simulate.
  [[nodiscard]] bool active() const { return active_; }
  /// At the end of iteration `iteration`, before its evaluation: the iteration to go on from, which is
  /// `iteration` unless a failure rolled the job back (state restored, downtime spent).
  std::int64_t end_of_iteration(std::int64_t iteration);

 private:
  struct Checkpoint {
    std::int64_t iteration = 0;
    double written_s = 0.0;  ///< when it was complete: the work after it is what a failure loses
    models::Parameters parameters;
    std::unique_ptr<models::Optimizer> optimizer;
    models::BatchStream batches;
  };
  /// Seconds to write or read one checkpoint of this worker's model and optimizer state.
  [[nodiscard]] double transfer_s() const;

  const TrainingContext* context_;
  int rank_;
  WorkerState state_;
  bool active_ = false;
  metrics::FailureSchedule schedule_;
  Checkpoint checkpoint_;
};

}  // namespace dtsim::runtime
