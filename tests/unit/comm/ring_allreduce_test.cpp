#include "sim/comm/ring_collectives.hpp"

#include "thread_transport.hpp"

#include <gtest/gtest.h>

#include <map>

namespace dtsim::comm {
namespace {

using Values = std::vector<float>;

// Small integers keep float sums exact, whatever the order of additions.
std::vector<Values> inputs(int ranks, std::size_t elements) {
  std::vector<Values> out(static_cast<std::size_t>(ranks), Values(elements));
  for (int r = 0; r < ranks; ++r) {
    for (std::size_t i = 0; i < elements; ++i) out[static_cast<std::size_t>(r)][i] = static_cast<float>((r + 1) * 1000 + i % 97);
  }
  return out;
}

class RingAllreduceRun : public ::testing::TestWithParam<std::tuple<int, std::size_t>> {};

TEST_P(RingAllreduceRun, EveryRankEndsWithTheExactSum) {
  const auto [ranks, elements] = GetParam();
  std::vector<Values> buffers = inputs(ranks, elements);
  Values expected(elements, 0.0F);
  for (const auto& buffer : buffers) {
    for (std::size_t i = 0; i < elements; ++i) expected[i] += buffer[i];
  }
  testing::ThreadNetwork network(ranks);
  testing::run_ranks(network, [&](Transport& transport) {
    RingAllreduce().run(transport, buffers[static_cast<std::size_t>(transport.rank())]);
  });
  for (int r = 0; r < ranks; ++r) EXPECT_EQ(buffers[static_cast<std::size_t>(r)], expected) << "rank " << r;
}

TEST_P(RingAllreduceRun, SendsTwoPMinusOneChunksToTheNextRank) {
  const auto [ranks, elements] = GetParam();
  std::vector<Values> buffers = inputs(ranks, elements);
  testing::ThreadNetwork network(ranks);
  testing::run_ranks(network, [&](Transport& transport) {
    RingAllreduce().run(transport, buffers[static_cast<std::size_t>(transport.rank())]);
  });
  std::map<int, int> sends_per_rank;
  const std::size_t largest_chunk = (elements + static_cast<std::size_t>(ranks) - 1) / static_cast<std::size_t>(ranks);
  for (const testing::SentMessage& message : network.log()) {
    EXPECT_EQ(message.to, (message.from + 1) % ranks);
    EXPECT_LE(message.elements, largest_chunk);
    ++sends_per_rank[message.from];
  }
  for (int r = 0; r < ranks && ranks > 1; ++r) EXPECT_EQ(sends_per_rank[r], 2 * (ranks - 1)) << "rank " << r;
}

INSTANTIATE_TEST_SUITE_P(RanksAndSizes, RingAllreduceRun,
                         ::testing::Combine(::testing::Values(1, 2, 3, 5, 8), ::testing::Values(1U, 7U, 64U, 1000U)));

TEST(ChunkBounds, PartitionDiffersByAtMostOne) {
  std::size_t next = 0;
  for (int i = 0; i < 3; ++i) {
    const ChunkBounds bounds = chunk_bounds(10, 3, i);
    EXPECT_EQ(bounds.begin, next);
    EXPECT_EQ(bounds.end - bounds.begin, i == 0 ? 4U : 3U);
    next = bounds.end;
  }
  EXPECT_EQ(next, 10U);
}

TEST(RingAllreduceTime, ClosedForm) {
  // 2(p-1)(alpha + n/(pB)) with p = 4, n = 4 MB, B = 1 GB/s, alpha = 10 us: 6 * (10e-6 + 1e-3).
  EXPECT_DOUBLE_EQ(ring_allreduce_time(4, core::Bytes(4e6), core::Seconds(1e-5), core::BytesPerSecond(1e9)).value(),
                   6 * (1e-5 + 1e-3));
  EXPECT_DOUBLE_EQ(ring_allreduce_time(1, core::Bytes(4e6), core::Seconds(1e-5), core::BytesPerSecond(1e9)).value(), 0.0);
}

}  // namespace
}  // namespace dtsim::comm
