// NCCL's channels: a ring collective of a group with several ranks on each of several machines splits over as
// many rings as a machine has ranks, each leaving a machine through a different rank, so that every rank's
// network port carries its share.

#include "sim/comm/channel_rings.hpp"

#include "sim/comm/library_collective.hpp"
#include "sim/comm/ring_collectives.hpp"
#include "thread_transport.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace dtsim::comm {
namespace {

TEST(ChannelRings, OneRingPerRankOfAMachineEachLeavingThroughAnotherRank) {
  const std::vector<int> machines{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2};
  const std::shared_ptr<const RingSet::Rings> rings = channel_rings(machines);
  ASSERT_NE(rings, nullptr);
  ASSERT_EQ(rings->size(), 4U);
  EXPECT_EQ(*(*rings)[1], (std::vector<int>{1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8}));
  std::set<int> leaving;  // the rank of machine 0 whose successor is on another machine, ring by ring
  for (const auto& ring : *rings) {
    std::vector<int> sorted = *ring;
    std::sort(sorted.begin(), sorted.end());
    for (int r = 0; r < 12; ++r) EXPECT_EQ(sorted[static_cast<std::size_t>(r)], r);
    for (std::size_t i = 0; i < ring->size(); ++i) {
      const int from = (*ring)[i];
      const int to = (*ring)[(i + 1) % ring->size()];
      if (machines[static_cast<std::size_t>(from)] == 0 && machines[static_cast<std::size_t>(to)] != 0) leaving.insert(from);
    }
  }
  EXPECT_EQ(leaving, (std::set<int>{0, 1, 2, 3}));
}

TEST(ChannelRings, OneRingWhereChannelsChangeNothingOrTheMachinesDiffer) {
  EXPECT_EQ(channel_rings(std::vector<int>{0, 0, 0, 0}), nullptr);        // one machine
  EXPECT_EQ(channel_rings(std::vector<int>{0, 1, 2, 3}), nullptr);        // a rank per machine
  EXPECT_EQ(channel_rings(std::vector<int>{0, 0, 0, 1, 1}), nullptr);     // unequal shares
  EXPECT_EQ(channel_rings(std::vector<int>{0, 1, 0, 1}), nullptr);        // a machine's ranks apart
  EXPECT_EQ(channel_rings(std::vector<int>{}), nullptr);
}

/// The ranks of machine 0 that send to machine 1 in a timing-only reduce-scatter of 8 ranks on 2 machines.
std::set<int> ranks_sending_across(const CollectiveAlgorithm& collective, std::size_t* messages_of_rank_0) {
  testing::ThreadNetwork network(8, {0, 0, 0, 0, 1, 1, 1, 1});
  testing::run_ranks(network, [&](Transport& transport) { collective.run(transport, Block::sized(8 * 4 * 10)); });
  std::set<int> across;
  std::size_t elements = 0;
  *messages_of_rank_0 = 0;
  for (const testing::SentMessage& m : network.log()) {
    if (m.from < 4 && m.to >= 4) across.insert(m.from);
    if (m.from == 0) ++*messages_of_rank_0, elements += m.elements;
  }
  EXPECT_EQ(elements, 7U * 40U);  // (p - 1) chunks of 40, whatever the rings
  return across;
}

TEST(ChannelRings, UnderTheLibraryEveryRankOfAMachineSendsAcrossAndTheBytesStayTheSame) {
  std::size_t messages = 0;
  EXPECT_EQ(ranks_sending_across(RingReduceScatter(), &messages), (std::set<int>{3}));
  EXPECT_EQ(messages, 7U);
  const LibraryCollective library(std::make_unique<RingReduceScatter>());
  EXPECT_EQ(ranks_sending_across(library, &messages), (std::set<int>{0, 1, 2, 3}));
  EXPECT_EQ(messages, 7U * 4U);  // every round on each of the 4 rings
}

}  // namespace
}  // namespace dtsim::comm
