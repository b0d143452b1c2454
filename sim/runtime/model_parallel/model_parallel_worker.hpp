#pragma once

#include "sim/runtime/context/training_context.hpp"

namespace dtsim::runtime {

/// One device of a model-parallel timing-only run (`training.parallelism` with pipeline or tensor above 1).
/// Its place in the grid follows `placement` (scenario::coordinates_of). Each iteration it runs its
/// schedule's passes over the micro-batches: a forward pass receives the previous stage's activations and
/// sends its own on, a backward pass receives the next stage's activation gradients and sends its own back
/// (sends never wait for the receiver); within a pass, its tensor group sums the outputs of row-split layers
/// forward and the input gradients of column-split layers backward (Megatron-LM), or reduce-scatters and
/// allgathers them under sequence parallelism. Then the replicas of its shard average its gradients with
/// the scenario's allreduce, and it runs the optimizer on its share of the parameters.
class ModelParallelWorker {
 public:
  ModelParallelWorker(TrainingContext context, int rank);
  void operator()();

 private:
  TrainingContext context_;
  int rank_;
};

}  // namespace dtsim::runtime
