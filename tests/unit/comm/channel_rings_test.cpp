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
  // Machine 0 entered at its rank 1 and left at its rank 2, machine 1 entered at its rank 2 (6) and left at
  // its rank 3 (7), machine 2 entered at its 3 (11) and left at its 1 (9), by which machine 0 is entered.
  EXPECT_EQ(*(*rings)[1], (std::vector<int>{1, 3, 0, 2, 6, 4, 5, 7, 11, 8, 10, 9}));
  std::set<int> leaving;  // the rank of machine 0 whose successor is on another machine, ring by ring
  for (const auto& ring : *rings) {
    std::vector<int> sorted = *ring;
    std::sort(sorted.begin(), sorted.end());
    for (int r = 0; r < 12; ++r) EXPECT_EQ(sorted[static_cast<std::size_t>(r)], r);
    for (std::size_t i = 0; i < ring->size(); ++i) {
      const int from = (*ring)[i];
      const int to = (*ring)[(i + 1) % ring->size()];
      if (machines[static_cast<std::size_t>(from)] == 0 && machines[static_cast<std::size_t>(to)] != 0)
        leaving.insert(from);
    }
  }
  EXPECT_EQ(leaving, (std::set<int>{0, 1, 2, 3}));
}

/// How many hops between machines join ranks of different places on their machines, over every ring.
int hops_across_places(const std::vector<int>& machines, int per) {
  int across = 0;
  const std::shared_ptr<const RingSet::Rings> rings = channel_rings(machines);
  for (const auto& ring : *rings) {
    for (std::size_t i = 0; i < ring->size(); ++i) {
      const int from = (*ring)[i];
      const int to = (*ring)[(i + 1) % ring->size()];
      const bool other_machine = machines[static_cast<std::size_t>(from)] != machines[static_cast<std::size_t>(to)];
      if (other_machine && from % per != to % per) ++across;
    }
  }
  return across;
}

TEST(ChannelRings, HopsBetweenMachinesKeepToOnePlaceWhereTheRingCanClose) {
  for (const int count : {2, 3, 4, 5}) {
    for (const int per : {2, 3, 4, 8}) {
      std::vector<int> machines;
      for (int m = 0; m < count; ++m) machines.insert(machines.end(), static_cast<std::size_t>(per), m);
      const int expected = count % 2 == 1 && per == 2 ? per : 0;  // two a machine, odd count: the closing hops
      EXPECT_EQ(hops_across_places(machines, per), expected) << count << " machines of " << per;
      const std::shared_ptr<const RingSet::Rings> rings = channel_rings(machines);
      for (const auto& ring : *rings) {
        std::vector<int> sorted = *ring;
        std::sort(sorted.begin(), sorted.end());
        for (int r = 0; r < count * per; ++r) ASSERT_EQ(sorted[static_cast<std::size_t>(r)], r);
      }
    }
  }
}

TEST(ChannelRings, OneRingWhereChannelsChangeNothingOrTheMachinesDiffer) {
  EXPECT_EQ(channel_rings(std::vector<int>{0, 0, 0, 0}), nullptr);     // one machine
  EXPECT_EQ(channel_rings(std::vector<int>{0, 1, 2, 3}), nullptr);     // a rank per machine
  EXPECT_EQ(channel_rings(std::vector<int>{0, 0, 0, 1, 1}), nullptr);  // unequal shares
  EXPECT_EQ(channel_rings(std::vector<int>{0, 1, 0, 1}), nullptr);     // a machine's ranks apart
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
