#pragma once
// All-to-all: every rank's block is p pieces, piece j for rank j, and every rank ends with the pieces the
// others held for it, piece i from rank i (the exchange of tokens between expert-parallel ranks).
//
// Direct: every rank sends each other rank its piece at once, one round of p-1 concurrent messages of n/p:
// alpha + n/(pB) on a full mesh. Hierarchical, for k ranks on each of N machines (as rail-aligned and 2D
// all-to-alls do it): inside each machine, each rank sends local rank l the N pieces bound for the ranks of
// local index l; then across machines, each rank sends the rank of its own local index on every other
// machine the k pieces gathered for it. Every rank sends k-1 + N-1 messages rather than p-1: fewer, larger
// messages across the fabric, each piece crossing it once as in the direct algorithm.

#include "sim/comm/collective_algorithm.hpp"
#include "sim/comm/machine_layout.hpp"

namespace dtsim::comm {

/// The elements of one piece of an all-to-all of `elements` per rank over `ranks`: floor(n/p). Piece j is
/// elements [j m, (j+1) m); the n mod p elements past the last piece stay where they are.
[[nodiscard]] std::size_t all_to_all_piece(std::size_t elements, int ranks);

class DirectAllToAll final : public CollectiveAlgorithm {
 public:
  [[nodiscard]] Operation operation() const override { return Operation::all_to_all; }
  void run(Transport& transport, Block data) const override;
  [[nodiscard]] bool computes_values_in_memory() const override { return true; }
  void values_in_memory(const GroupBlocks& group) const override;
  /// alpha + m/B, m the piece's bytes (n/p, rounded down to whole elements).
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

class HierarchicalAllToAll final : public CollectiveAlgorithm {
 public:
  [[nodiscard]] Operation operation() const override { return Operation::all_to_all; }
  /// Throws std::invalid_argument when machines hold different numbers of ranks.
  void run(Transport& transport, Block data) const override;
  [[nodiscard]] bool computes_values_in_memory() const override { return true; }
  void values_in_memory(const GroupBlocks& group) const override;
  /// With every rank a machine of its own: the direct all-to-all's alpha + m/B.
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }

 private:
  MachineLayouts layouts_;
};

/// The direct all-to-all of uneven pieces (MPI's alltoallv), timing-only: this rank sends `to_each[j]`
/// elements to rank j, every piece at once, and receives what the others send it. Throws
/// std::invalid_argument when `to_each` does not have a size for every rank.
void direct_all_to_all_v(Transport& transport, std::span<const std::size_t> to_each);

/// The direct all-to-all of uneven pieces with their values (MPI's alltoallv): this rank sends `pieces[j]` to
/// rank j, every piece at once (its own stays), and returns the piece each rank sent it, by rank. Throws
/// std::invalid_argument when `pieces` does not have one for every rank.
std::vector<Buffer> direct_all_to_all_values(Transport& transport, std::vector<Buffer> pieces);

/// Alpha-beta time of the hierarchical all-to-all on k ranks per machine and N machines, m the piece's bytes:
/// (a_i + N m / B_i) inside machines (k > 1), then (a_x + k m / B_x) across them (N > 1). `intra` is one
/// message between two devices of a machine, `inter` one between machines (path latency, and the bandwidth
/// each of the concurrent flows gets).
core::Seconds hierarchical_all_to_all_time(int per_machine, int machines, core::Bytes size, const AlphaBeta& intra,
                                           const AlphaBeta& inter);

}  // namespace dtsim::comm
