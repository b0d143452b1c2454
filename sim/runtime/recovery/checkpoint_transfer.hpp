#pragma once
// What a checkpoint of a model's state costs to move to or from storage.

#include "models/optimizer.hpp"

#include <cstddef>

namespace dtsim::runtime {

/// Seconds to write (or read back) a checkpoint of `parameters` values and the optimizer's state for them at
/// `bytes_per_s` (failures.checkpoint.storage_bandwidth, scheduler.checkpoint_bandwidth): 4 bytes per value; 0
/// without a rate.
double checkpoint_transfer_s(double bytes_per_s, std::size_t parameters, const models::Optimizer& optimizer);

}  // namespace dtsim::runtime
