// The messages count_rank_messages counts for a rank, against those the rank sends when every rank runs the
// collective on the in-process transport: the same number, for every registered algorithm.

#include "sim/comm/message_count.hpp"

#include "registered_algorithms.hpp"
#include "thread_transport.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace dtsim::comm {
namespace {

/// Messages rank `rank` sent when every rank ran `algorithm` timing-only on `elements`.
std::int64_t sent_by(const CollectiveAlgorithm& algorithm, int ranks, std::vector<int> machines, std::size_t elements,
                     int rank) {
  testing::ThreadNetwork network(ranks, std::move(machines));
  testing::run_ranks(network, [&](Transport& transport) { algorithm.run(transport, Block::sized(elements)); });
  const std::vector<testing::SentMessage> log = network.log();
  return std::count_if(log.begin(), log.end(), [&](const testing::SentMessage& m) { return m.from == rank; });
}

std::int64_t counted(const RankMessages& rank) {
  std::int64_t out = rank.messages;
  for (const CountedPhase& phase : rank.phases) out += phase.rounds;
  return out;
}

TEST(MessageCount, EveryAlgorithmCountsWhatItsRankSends) {
  struct Layout {
    int ranks;
    std::vector<int> machines;
  };
  const std::vector<Layout> layouts{{2, {}}, {5, {}}, {8, {}}, {8, {0, 0, 0, 0, 1, 1, 1, 1}}, {6, {0, 0, 1, 1, 2, 2}}};
  for (const std::string& name : testing::algorithms()) {
    const std::unique_ptr<CollectiveAlgorithm> algorithm = testing::make(name);
    for (const Layout& layout : layouts) {
      const std::size_t elements = 24 * static_cast<std::size_t>(layout.ranks);
      for (const int rank : {0, layout.ranks - 1}) {
        SCOPED_TRACE(name + " on " + std::to_string(layout.ranks) + " ranks, rank " + std::to_string(rank) +
                     (layout.machines.empty() ? "" : " on machines"));
        const std::optional<RankMessages> count =
            count_rank_messages(*algorithm, rank, layout.ranks, layout.machines, elements);
        ASSERT_TRUE(count.has_value());
        EXPECT_EQ(counted(*count), sent_by(*algorithm, layout.ranks, layout.machines, elements, rank));
      }
    }
  }
}

TEST(MessageCount, ARingAllreduceIsTwoPhasesOfPMinusOneRounds) {
  const std::unique_ptr<CollectiveAlgorithm> ring = testing::make("allreduce/ring");
  const std::optional<RankMessages> count = count_rank_messages(*ring, 0, 1000, {}, 1000 * 8);
  ASSERT_TRUE(count.has_value());
  EXPECT_EQ(count->messages, 0);
  ASSERT_EQ(count->phases.size(), 2U);
  for (const CountedPhase& phase : count->phases) {
    EXPECT_EQ(phase.shift, 1);
    EXPECT_EQ(phase.rounds, 999);
  }
}

}  // namespace
}  // namespace dtsim::comm
