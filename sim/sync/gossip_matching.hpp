#pragma once
// Who averages with whom in one round of gossip with random peers: a random matching of the workers along
// the topology's worker-to-worker links, drawn from a seeded stream per round, so that every worker
// computes the same matching on its own and the run is deterministic.

#include <cstdint>
#include <vector>

namespace dtsim::sync {

/// `neighbours[r]`: the ranks linked to rank r. Returns each rank's partner in round `round`, or -1 when
/// all its neighbours were already taken. Visits ranks in a seeded random order and pairs each unmatched
/// one with a uniformly drawn unmatched neighbour.
std::vector<int> random_matching(const std::vector<std::vector<int>>& neighbours, std::uint64_t seed, std::int64_t round);

}  // namespace dtsim::sync
