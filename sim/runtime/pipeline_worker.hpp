#pragma once

#include "sim/runtime/training_context.hpp"

namespace dtsim::runtime {

/// One stage of one pipeline replica in a timing-only run (`training.parallelism.pipeline` > 1). Worker r is
/// stage r % pipeline of replica r / pipeline. Each iteration it runs its schedule's passes over the
/// micro-batches: a forward pass receives the previous stage's activations and sends its own on, a backward
/// pass receives the next stage's activation gradients and sends its own back (sends never wait for the
/// receiver); then the replicas of the stage average its gradients with the scenario's allreduce, and it
/// runs the optimizer on its layers.
class PipelineWorker {
 public:
  PipelineWorker(TrainingContext context, int rank);
  void operator()();

 private:
  TrainingContext context_;
  int rank_;
};

}  // namespace dtsim::runtime
