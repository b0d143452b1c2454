#pragma once

#include "sim/runtime/s4u_transport.hpp"
#include "sim/runtime/training_context.hpp"

namespace dtsim::runtime {

/// A data-parallel worker that averages gradients with its peers by allreduce, then applies the optimizer
/// to its own copy of the parameters (identical on every worker).
class AllreduceWorker {
 public:
  AllreduceWorker(TrainingContext context, int rank);
  void operator()();

 private:
  TrainingContext context_;
  int rank_;
};

}  // namespace dtsim::runtime
