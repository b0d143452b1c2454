#pragma once

#include "sim/runtime/model_parallel/share_assembly.hpp"

#include <memory>

namespace dtsim::runtime {

/// One device of a dense classifier trained for real with pipeline or tensor parallelism (see
/// models::StageShare): each step it runs its stage's passes over the micro-batches of its replica's batch,
/// receiving the previous stage's real activations and the next stage's real activation gradients, its tensor
/// group summing partial products with the scenario's allreduce; then the replicas of its share average their
/// gradients by allreduce and each applies the optimizer to its share. The device that finishes a step last
/// records its evaluation from the assembled parameters.
class SplitMlpWorker {
 public:
  SplitMlpWorker(TrainingContext context, int rank, std::shared_ptr<ShareAssembly> assembly);
  void operator()();

 private:
  TrainingContext context_;
  int rank_;
  std::shared_ptr<ShareAssembly> assembly_;
};

}  // namespace dtsim::runtime
