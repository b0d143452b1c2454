#pragma once
// Double binary tree allreduce: the buffer's two halves are each reduced up and broadcast down their own
// binary tree, both trees at once, so that every rank is an inner node of at most one tree and a leaf of
// the other, and no rank's links carry more than one tree's inner traffic.
//
// Tree A is the in-order binary tree over positions 1..p (the root is the largest power of two <= p; the
// children of position x with lowest set bit b are x - b/2 and x + b/2, truncated to p), rank x - 1 at
// position x. Tree B is A mirrored (rank p - x at position x) for even p, and A shifted by one (rank
// x mod p) for odd p: then a rank inner in one tree is a leaf in the other. Both trees have height
// h = floor(log2 p). Messages carry half the buffer; on a network where each pair of ranks has its own link
// (a full mesh) nothing is shared and the whole takes 2h(alpha + n/(2B)).

#include "sim/comm/collective_algorithm.hpp"

#include <vector>

namespace dtsim::comm {

class DoubleBinaryTreeAllreduce final : public CollectiveAlgorithm {
 public:
  [[nodiscard]] Operation operation() const override { return Operation::allreduce; }
  void run(Transport& transport, Block data) const override;
  [[nodiscard]] bool computes_values_in_memory() const override { return true; }
  void values_in_memory(const GroupBlocks& group) const override;
  /// 2 floor(log2 p)(alpha + n/(2B)).
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

/// A rank's place in one tree: its parent (-1 at the root) and its children, left first.
struct TreeRole {
  int parent = -1;
  std::vector<int> children;
};

/// `rank`'s role in tree `tree` (0: A, 1: B) of the double binary tree over `ranks` ranks.
TreeRole double_binary_tree_role(int ranks, int tree, int rank);

}  // namespace dtsim::comm
