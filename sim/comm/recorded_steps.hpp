#pragma once
// The steps another rank of a group would run in a timing-only collective, recorded rather than run: where one
// rank stands for every rank of its group (sim/runtime/data_parallel/mirrored_ranks.hpp), the group's collective
// given as steps (Transport::run_steps) is timed from every rank's.

#include "sim/comm/collective_algorithm.hpp"
#include "sim/comm/transport.hpp"

#include <span>
#include <vector>

namespace dtsim::comm {

/// The steps rank `rank` of a group of `size` ranks on `machines` (Transport::machines) runs in `collective` of
/// `data` (sizes only), recorded by a transport that times phases at once and moves nothing; its clock stays at 0,
/// so a library's time added after the steps (Transport::spend) is left out. Throws std::logic_error where the
/// collective sends anything but steps.
[[nodiscard]] std::vector<Step> recorded_steps(const CollectiveAlgorithm& collective, Block data, int rank, int size,
                                               std::span<const int> machines);

}  // namespace dtsim::comm
