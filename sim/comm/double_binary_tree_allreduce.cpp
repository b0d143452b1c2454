#include "sim/comm/double_binary_tree_allreduce.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <memory>

namespace dtsim::comm {
namespace {

int lowest_bit(int x) { return x & -x; }

/// Parent position of position x in the in-order tree truncated to 1..p; 0 for the root.
int parent_position(int x, int p) {
  const int root = static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));
  while (x != root) {
    const int b = lowest_bit(x);
    x = (x & (2 * b)) != 0 ? x - b : x + b;
    if (x <= p) return x;
  }
  return 0;
}

/// Child positions of x, left first: x - b/2, and the first of x + b/2, its left child, ... within 1..p.
std::vector<int> child_positions(int x, int p) {
  std::vector<int> children;
  const int b = lowest_bit(x);
  if (b == 1) return children;
  children.push_back(x - b / 2);
  int right = x + b / 2;
  while (right > p && lowest_bit(right) > 1) right -= lowest_bit(right) / 2;
  if (right <= p) children.push_back(right);
  return children;
}

int rank_at(int position, int p, int tree) {
  if (tree == 0) return position - 1;
  return p % 2 == 0 ? p - position : position % p;
}

int position_of(int rank, int p, int tree) {
  if (tree == 0) return rank + 1;
  if (p % 2 == 0) return p - rank;
  return rank == 0 ? p : rank;
}

// Channels: the reduce and the broadcast of each tree have their own, so that messages of the two trees
// between the same pair of ranks can never be confused.
int reduce_tag(int tree) { return 1 + tree; }
int broadcast_tag(int tree) { return 3 + tree; }

/// The sum over the subtree of `rank` in tree `tree` of the half at `half` of each rank's block: its own values,
/// then each child's subtree added, left first, as the reduce adds what arrives.
std::vector<float> subtree_sum(std::span<const std::span<float>> blocks, int tree, int rank, ChunkBounds half) {
  const std::span<const float> own = blocks[static_cast<std::size_t>(rank)].subspan(half.begin, half.end - half.begin);
  std::vector<float> sum(own.begin(), own.end());
  for (const int child : double_binary_tree_role(static_cast<int>(blocks.size()), tree, rank).children) {
    const std::vector<float> arrived = subtree_sum(blocks, tree, child, half);
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += arrived[i];
  }
  return sum;
}

}  // namespace

TreeRole double_binary_tree_role(int ranks, int tree, int rank) {
  TreeRole role;
  const int x = position_of(rank, ranks, tree);
  const int parent = parent_position(x, ranks);
  if (parent != 0) role.parent = rank_at(parent, ranks, tree);
  for (const int child : child_positions(x, ranks)) role.children.push_back(rank_at(child, ranks, tree));
  return role;
}

void DoubleBinaryTreeAllreduce::run(Transport& transport, Block data) const {
  const int p = transport.size();
  if (p == 1) return;
  const int rank = transport.rank();
  const std::array<Block, 2> halves{chunk_of(data, 2, 0), chunk_of(data, 2, 1)};
  const std::array<TreeRole, 2> roles{double_binary_tree_role(p, 0, rank), double_binary_tree_role(p, 1, rank)};

  // Where this rank is a leaf, its part needs no waiting: post the send up and the receive of the result.
  std::vector<std::unique_ptr<Pending>> leaf_sends;
  std::array<std::unique_ptr<Pending>, 2> leaf_results;
  for (int tree = 0; tree < 2; ++tree) {
    const TreeRole& role = roles[static_cast<std::size_t>(tree)];
    if (!role.children.empty() || role.parent < 0) continue;
    leaf_sends.push_back(
        transport.post_send(role.parent, halves[static_cast<std::size_t>(tree)].copy(), reduce_tag(tree)));
    leaf_results[static_cast<std::size_t>(tree)] = transport.post_recv(role.parent, broadcast_tag(tree));
  }
  // Where it is an inner node: gather the children's sums, pass the total up, wait for the result, pass it
  // down. Children are added left first, so every rank ends with bitwise the same values.
  for (int tree = 0; tree < 2; ++tree) {
    const TreeRole& role = roles[static_cast<std::size_t>(tree)];
    if (role.children.empty()) continue;
    const Block& half = halves[static_cast<std::size_t>(tree)];
    std::vector<std::unique_ptr<Pending>> from_children;
    for (const int child : role.children) from_children.push_back(transport.post_recv(child, reduce_tag(tree)));
    for (auto& pending : from_children) half.add(pending->wait());
    if (role.parent >= 0) {
      static_cast<void>(transport.post_send(role.parent, half.copy(), reduce_tag(tree))->wait());
      half.assign(transport.post_recv(role.parent, broadcast_tag(tree))->wait());
    }
    std::vector<std::unique_ptr<Pending>> to_children;
    for (const int child : role.children)
      to_children.push_back(transport.post_send(child, half.copy(), broadcast_tag(tree)));
    for (auto& pending : to_children) static_cast<void>(pending->wait());
  }
  for (auto& pending : leaf_sends) static_cast<void>(pending->wait());
  for (int tree = 0; tree < 2; ++tree) {
    if (leaf_results[static_cast<std::size_t>(tree)])
      halves[static_cast<std::size_t>(tree)].assign(leaf_results[static_cast<std::size_t>(tree)]->wait());
  }
}

void DoubleBinaryTreeAllreduce::values_in_memory(const GroupBlocks& group) const {
  const auto p = static_cast<int>(group.blocks.size());
  if (p == 1) return;
  const std::size_t n = group.blocks.front().size();
  for (int tree = 0; tree < 2; ++tree) {
    const ChunkBounds half = chunk_bounds(n, 2, tree);
    const int root = rank_at(static_cast<int>(std::bit_floor(static_cast<unsigned>(p))), p, tree);
    const std::vector<float> total = subtree_sum(group.blocks, tree, root, half);
    for (const std::span<float>& block : group.blocks) {
      std::copy(total.begin(), total.end(), block.begin() + static_cast<std::ptrdiff_t>(half.begin));
    }
  }
}

core::Seconds DoubleBinaryTreeAllreduce::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  if (ranks <= 1) return core::Seconds(0.0);
  int height = 0;
  while ((2 << height) <= ranks) ++height;
  return (cost.alpha + size / (cost.bandwidth * 2.0)) * (2.0 * height);
}

}  // namespace dtsim::comm
