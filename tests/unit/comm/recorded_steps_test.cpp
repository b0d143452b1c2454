#include "sim/comm/recorded_steps.hpp"

#include "sim/comm/all_to_all.hpp"
#include "sim/comm/ring_collectives.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace dtsim::comm {
namespace {

TEST(RecordedSteps, AreTheStepsTheCollectiveRunsOnThatRank) {
  // The direct all-to-all: rank 2 of 4 sends a quarter of its 400 elements to each other rank, and receives as many.
  const std::vector<Step> direct = recorded_steps(DirectAllToAll{}, Block::sized(400), 2, 4, {});
  ASSERT_EQ(direct.size(), 1U);
  EXPECT_EQ(direct[0].to, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(direct[0].from, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(direct[0].elements, 100U);
  // The hierarchical one on 2 machines of 2: inside rank 1's machine first, then to its local index's peer.
  const std::vector<int> machines{0, 0, 1, 1};
  const std::vector<Step> hierarchical = recorded_steps(HierarchicalAllToAll{}, Block::sized(400), 1, 4, machines);
  ASSERT_EQ(hierarchical.size(), 2U);
  EXPECT_EQ(hierarchical[0].to, (std::vector<int>{0}));
  EXPECT_EQ(hierarchical[0].elements, 200U);
  EXPECT_EQ(hierarchical[1].to, (std::vector<int>{3}));
  EXPECT_EQ(hierarchical[1].elements, 200U);
}

TEST(RecordedSteps, RefuseACollectiveThatSendsMessagesOfItsOwn) {
  // A ring allreduce sends its rounds as messages, which no step names.
  EXPECT_THROW(static_cast<void>(recorded_steps(RingAllreduce{}, Block::sized(400), 1, 4, {})), std::logic_error);
}

}  // namespace
}  // namespace dtsim::comm
