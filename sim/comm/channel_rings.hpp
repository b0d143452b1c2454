#pragma once
// A communication library's channels: NCCL builds several rings over the same ranks and splits every ring
// collective's data among them, each ring leaving a node through a different GPU, so that a group with
// several GPUs on each node drives all their network ports at once (NCCL's ring search in src/graph/,
// one ring per NIC on nodes with a NIC per GPU). With one ring, the whole group's traffic would leave each
// node through one GPU's port.

#include "sim/comm/transport.hpp"

#include <memory>
#include <span>

namespace dtsim::comm {

/// The rings of a group whose ranks lie machine by machine (`machines`: each rank's machine, those of a
/// machine consecutive), on at least two machines, with the same number m >= 2 of ranks on each: m rings,
/// each visiting every machine's ranks in turn, and leaving each machine through another rank than every
/// other ring. Each ring leaves a machine through the rank of the place by which it enters the next (NIC
/// i to NIC i: the same rail of a rail-optimized fabric, as NCCL keeps its rings), all the way round; where
/// that cannot close (two ranks a machine on an odd count of machines), the closing hop aside. Null for any
/// other group: one ring in rank order serves it.
[[nodiscard]] std::shared_ptr<const RingSet::Rings> channel_rings(std::span<const int> machines);

}  // namespace dtsim::comm
