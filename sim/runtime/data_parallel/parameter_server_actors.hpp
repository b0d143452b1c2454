#pragma once

#include "sim/runtime/context/training_context.hpp"
#include "sim/runtime/network/s4u_transport.hpp"

namespace dtsim::runtime {

/// A worker that pushes each gradient to the parameter servers, one shard to each, and pulls the updated
/// parameters. Ranks 0..p-1 are workers; ranks p..p+S-1 are the servers of shards 0..S-1.
class ParameterServerWorker {
 public:
  ParameterServerWorker(TrainingContext context, int rank);
  void operator()();

 private:
  TrainingContext context_;
  int rank_;
};

/// The server of one shard (a contiguous key range of the parameters): each round, averages the workers'
/// gradients for its range and applies the optimizer to it (its FLOPs charged to the server's host), then
/// sends the range back.
class ParameterServer {
 public:
  ParameterServer(TrainingContext context, int shard);
  void operator()();

 private:
  TrainingContext context_;
  int shard_;
};

}  // namespace dtsim::runtime
