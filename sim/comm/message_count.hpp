#pragma once
// The messages one rank posts in one call of a collective, counted without simulating it: a transport that
// sends nothing and hands back, for every receive, a message the size of what the rank sent in the same call
// (the collectives' timing-only steps are symmetric). Ring phases are kept apart, by shift and rounds, because
// a transport may time a phase's identical rounds as one transfer (runtime::PhaseShortcut).

#include "sim/comm/collective_algorithm.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace dtsim::comm {

/// One ring phase of the call: rounds of every rank sending to the rank `shift` places on.
struct CountedPhase {
  int shift = 1;
  int rounds = 0;
};

struct RankMessages {
  /// Messages posted outside ring phases.
  std::int64_t messages = 0;
  std::vector<CountedPhase> phases;
};

/// What rank `rank` of `size` (on `machines`, as Transport::machines(); empty: a machine per rank) posts in one
/// timing-only call of `algorithm` on `elements` floats; nullopt where the algorithm does not run on a
/// transport that only counts (it expected a message size the count could not know).
[[nodiscard]] std::optional<RankMessages> count_rank_messages(const CollectiveAlgorithm& algorithm, int rank, int size,
                                                             std::span<const int> machines, std::size_t elements);

}  // namespace dtsim::comm
