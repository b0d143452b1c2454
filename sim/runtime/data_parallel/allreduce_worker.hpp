#pragma once

#include "sim/runtime/context/training_context.hpp"
#include "sim/runtime/network/s4u_transport.hpp"

namespace dtsim::runtime {

/// A data-parallel worker without a server: it averages gradients with its peers by allreduce and applies
/// the optimizer to its own copy of the parameters (identical on every worker); or, as the strategy says,
/// takes local steps and averages the models by allreduce (local SGD) or with its neighbours (gossip).
class AllreduceWorker {
 public:
  AllreduceWorker(TrainingContext context, int rank);
  void operator()();

 private:
  /// Averages `parameters` with the neighbours of this rank for gossip round `round`.
  void gossip(comm::Transport& transport, std::int64_t round, models::Parameters& parameters, bool with_all);

  TrainingContext context_;
  int rank_;
};

}  // namespace dtsim::runtime
