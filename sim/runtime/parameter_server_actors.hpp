#pragma once

#include "sim/runtime/s4u_transport.hpp"
#include "sim/runtime/training_context.hpp"

namespace dtsim::runtime {

/// A worker that pushes each gradient to the parameter server and pulls the updated parameters.
/// Ranks 0..p-1 are workers; rank p is the server.
class ParameterServerWorker {
 public:
  ParameterServerWorker(TrainingContext context, int rank);
  void operator()();

 private:
  TrainingContext context_;
  int rank_;
};

/// The server: each round, averages the workers' gradients and applies the optimizer (its FLOPs charged
/// to the server's host), then sends the parameters back.
class ParameterServer {
 public:
  explicit ParameterServer(TrainingContext context);
  void operator()();

 private:
  TrainingContext context_;
};

}  // namespace dtsim::runtime
