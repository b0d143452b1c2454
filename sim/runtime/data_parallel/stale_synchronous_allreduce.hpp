#pragma once
// Stale-synchronous parallel over an allreduce: each worker's allreduces run in the background, one per
// clock and in clock order, while the worker goes on computing, up to its staleness bound ahead.

#include "sim/runtime/context/training_context.hpp"

namespace dtsim::runtime {

/// Runs worker `rank` under a bounded-staleness strategy on an allreduce architecture. The worker computes
/// the gradient of clock c on the newest averaged parameters it has, once the updates of every clock up to
/// c - 1 - s are applied, and hands it to an averaging actor on the same host, which allreduces the
/// gradients of clocks 1, 2, ... in order, averages them and applies each update. s = 0 is BSP, bit for bit.
///
/// The worker's time blocked on the bound is its wait_s; the averaging actor's transfers, optimizer steps
/// and bytes are added to the host's communication_s, compute_s and bytes_sent (its time waiting for peers
/// is background time, not the worker's, and is not added).
void run_stale_synchronous_allreduce(const TrainingContext& context, int rank);

}  // namespace dtsim::runtime
