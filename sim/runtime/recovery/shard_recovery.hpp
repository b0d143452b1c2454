#pragma once
// Failures of a parameter-server shard: every `checkpoint.every` updates the shard writes its parameters
// and optimizer state (at the storage bandwidth, replying to no one meanwhile); when it fails, it is gone
// for its repair (a spare takes over without one), the restart and reading the checkpoint back, and then
// goes on from the checkpoint: the updates since are lost. The workers that need it wait meanwhile.

#include "models/optimizer.hpp"
#include "sim/metrics/failure_schedule.hpp"
#include "sim/runtime/context/training_context.hpp"
#include "sim/runtime/recovery/checkpoint_transfer.hpp"

#include <memory>

namespace dtsim::runtime {

class ShardRecovery {
 public:
  ShardRecovery(const TrainingContext& context, int shard, models::Parameters* parameters,
                std::unique_ptr<models::Optimizer>* optimizer);

  /// Between two messages, with `updates` applied so far: writes a checkpoint when one is due, and meets a
  /// failure since the last call, if any.
  void between_messages(std::int64_t updates);

 private:
  [[nodiscard]] double transfer_s() const;

  const TrainingContext* context_;
  int shard_;
  models::Parameters* parameters_;
  std::unique_ptr<models::Optimizer>* optimizer_;
  std::optional<metrics::FailureSchedule> schedule_;
  std::int64_t checkpoint_updates_ = 0;
  double checkpoint_s_ = 0.0;
  models::Parameters checkpoint_parameters_;
  std::unique_ptr<models::Optimizer> checkpoint_optimizer_;
};

}  // namespace dtsim::runtime
