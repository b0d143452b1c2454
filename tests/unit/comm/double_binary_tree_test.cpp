// The two trees of the double binary tree: each is a tree over all ranks (one root, every other rank's
// parent lists it as a child), of height floor(log2 p), and no rank is an inner node of both.

#include "sim/comm/double_binary_tree_allreduce.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace dtsim::comm {
namespace {

int depth(int ranks, int tree, int rank) {
  int levels = 0;
  for (int at = rank; double_binary_tree_role(ranks, tree, at).parent >= 0; at = double_binary_tree_role(ranks, tree, at).parent) {
    ++levels;
    if (levels > ranks) return -1;  // a cycle
  }
  return levels;
}

class DoubleBinaryTree : public ::testing::TestWithParam<int> {};

TEST_P(DoubleBinaryTree, BothTreesSpanEveryRankWithHeightFloorLog2P) {
  const int p = GetParam();
  int expected_height = 0;
  while ((2 << expected_height) <= p) ++expected_height;
  for (int tree = 0; tree < 2; ++tree) {
    int roots = 0;
    int height = 0;
    for (int rank = 0; rank < p; ++rank) {
      const TreeRole role = double_binary_tree_role(p, tree, rank);
      EXPECT_LE(role.children.size(), 2U);
      if (role.parent < 0) {
        ++roots;
      } else {
        const auto siblings = double_binary_tree_role(p, tree, role.parent).children;
        EXPECT_NE(std::find(siblings.begin(), siblings.end(), rank), siblings.end()) << "tree " << tree << " rank " << rank;
      }
      for (const int child : role.children) EXPECT_EQ(double_binary_tree_role(p, tree, child).parent, rank);
      const int d = depth(p, tree, rank);
      ASSERT_GE(d, 0) << "cycle at rank " << rank;
      height = std::max(height, d);
    }
    EXPECT_EQ(roots, 1) << "tree " << tree;
    EXPECT_EQ(height, expected_height) << "tree " << tree;
  }
}

TEST_P(DoubleBinaryTree, NoRankIsAnInnerNodeOfBothTrees) {
  const int p = GetParam();
  for (int rank = 0; rank < p; ++rank) {
    const bool inner_a = !double_binary_tree_role(p, 0, rank).children.empty();
    const bool inner_b = !double_binary_tree_role(p, 1, rank).children.empty();
    EXPECT_FALSE(inner_a && inner_b) << "rank " << rank;
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, DoubleBinaryTree, ::testing::Values(2, 3, 4, 5, 6, 7, 8, 13, 16, 31, 64, 100));

}  // namespace
}  // namespace dtsim::comm
