#pragma once
// What a checkpoint of one worker's state costs to move to or from storage.

#include "models/optimizer.hpp"
#include "sim/scenario/scenario.hpp"

#include <cstddef>

namespace dtsim::runtime {

/// Seconds to write (or read back) a checkpoint of `parameters` values and the optimizer's state for them at
/// the scenario's storage bandwidth: 4 bytes per value; 0 without a storage bandwidth.
double checkpoint_transfer_s(const scenario::FailureSpec& spec, std::size_t parameters, const models::Optimizer& optimizer);

}  // namespace dtsim::runtime
