#pragma once

#include "sim/runtime/training_context.hpp"

#include <memory>

namespace dtsim::runtime {

/// What the devices of a split dense classifier share, beside their messages: the whole model's
/// parameters assembled from every device's share after each step, for the evaluations (an observation,
/// not a message), and how many devices have finished each step.
struct SplitAssembly;

/// One device of a dense classifier trained for real with pipeline or tensor parallelism (see
/// models::StageShare): each step it runs its stage's passes over the micro-batches of its replica's batch,
/// receiving the previous stage's real activations and the next stage's real activation gradients, its tensor
/// group summing partial products with the scenario's allreduce; then the replicas of its share average their
/// gradients by allreduce and each applies the optimizer to its share. The device that finishes a step last
/// records its evaluation from the assembled parameters.
class SplitMlpWorker {
 public:
  SplitMlpWorker(TrainingContext context, int rank, std::shared_ptr<SplitAssembly> assembly);
  void operator()();

  /// The shared assembly for one run.
  static std::shared_ptr<SplitAssembly> make_assembly(const TrainingSetup& setup);

 private:
  TrainingContext context_;
  int rank_;
  std::shared_ptr<SplitAssembly> assembly_;
};

}  // namespace dtsim::runtime
