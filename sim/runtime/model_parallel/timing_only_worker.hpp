#pragma once

#include "sim/runtime/context/training_context.hpp"
#include "sim/runtime/network/s4u_transport.hpp"

namespace dtsim::runtime {

/// A worker of a timing-only run (a model profile): the allreduce worker's loop for bsp and local SGD with
/// no values. Each iteration costs the profile's training FLOPs for the batch, or its memory traffic where
/// that takes longer (the roofline), then gradient averaging (bsp) or, every local_steps iterations, model
/// averaging by the scenario's allreduce on messages of the model's size (padded to a multiple of the
/// workers), and the optimizer's FLOPs.
class TimingOnlyWorker {
 public:
  TimingOnlyWorker(TrainingContext context, int rank);
  void operator()();

 private:
  TrainingContext context_;
  int rank_;
};

}  // namespace dtsim::runtime
