#pragma once
// The hybrid architecture, for models with sparse gradients (embeddings): workers average the dense
// parameters by allreduce, and push the gradients of only the rows their batch touched to the parameter
// servers that hold those rows (sharded by row range), pulling the rows their next batch needs.

#include "sim/runtime/context/training_context.hpp"

namespace dtsim::runtime {

/// Every iteration (BSP): the gradient of its batch; the dense part allreduced, averaged and applied; to
/// each server, the touched rows of its range with their gradients and the ids of the rows the next batch
/// will touch; from each server, those rows' values once every worker's push of the clock is applied.
/// Ranks 0..p-1 are workers (also in the dense allreduce); ranks p..p+S-1 are the servers of shards 0..S-1.
class HybridWorker {
 public:
  /// `server_rows` mirrors the servers' rows, for worker 0's evaluations (an observation, not a message).
  HybridWorker(TrainingContext context, int rank, const models::Parameters* server_rows);
  void operator()();

 private:
  TrainingContext context_;
  int rank_;
  const models::Parameters* server_rows_;
};

/// The server of one shard of the rows: each clock, one message from every worker; every pushed row's
/// gradients summed in worker order and scaled by 1/p, one SGD step on each such row; then each worker's
/// requested rows sent back. Writes its rows into `server_rows` as it updates them.
class HybridServer {
 public:
  HybridServer(TrainingContext context, int shard, models::Parameters* server_rows);
  void operator()();

 private:
  TrainingContext context_;
  int shard_;
  models::Parameters* server_rows_;
};

}  // namespace dtsim::runtime
