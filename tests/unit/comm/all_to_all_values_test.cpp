// The all-to-all of uneven pieces with values: each rank gets, from every rank, exactly the piece that rank
// made for it, its own included, and only the other ranks' pieces cross the network.

#include "sim/comm/all_to_all.hpp"
#include "tests/unit/comm/thread_transport.hpp"

#include <gtest/gtest.h>

#include <mutex>

namespace dtsim::comm {
namespace all_to_all_values_test {

/// Rank `from`'s piece for rank `to`: (from + 1) x (to + 1) - 1 values (none from rank 0 to rank 0), each
/// naming its sender, receiver and place.
std::vector<float> piece(int from, int to) {
  std::vector<float> out;
  for (int i = 0; i < (from + 1) * (to + 1) - 1; ++i) out.push_back(static_cast<float>(from * 10'000 + to * 100 + i));
  return out;
}

TEST(DirectAllToAllValues, EveryRankGetsThePieceEachRankMadeForIt) {
  constexpr int kRanks = 4;
  testing::ThreadNetwork network(kRanks);
  std::mutex mutex;
  std::vector<std::vector<Buffer>> received(kRanks);
  testing::run_ranks(network, [&](Transport& transport) {
    std::vector<Buffer> pieces;
    for (int to = 0; to < kRanks; ++to) pieces.emplace_back(piece(transport.rank(), to));
    std::vector<Buffer> got = direct_all_to_all_values(transport, std::move(pieces));
    const std::lock_guard lock(mutex);
    received[static_cast<std::size_t>(transport.rank())] = std::move(got);
  });
  for (int to = 0; to < kRanks; ++to) {
    ASSERT_EQ(received[static_cast<std::size_t>(to)].size(), static_cast<std::size_t>(kRanks));
    for (int from = 0; from < kRanks; ++from) {
      const Buffer& got = received[static_cast<std::size_t>(to)][static_cast<std::size_t>(from)];
      const std::vector<float> expected = piece(from, to);
      EXPECT_EQ(std::vector<float>(got.values().begin(), got.values().end()), expected) << from << " -> " << to;
    }
  }
  // p (p - 1) messages, one per ordered pair of different ranks, the empty piece of none among them.
  const std::vector<testing::SentMessage> log = network.log();
  EXPECT_EQ(log.size(), static_cast<std::size_t>(kRanks * (kRanks - 1)));
  for (const testing::SentMessage& m : log) {
    EXPECT_NE(m.from, m.to);
    EXPECT_EQ(m.elements, static_cast<std::size_t>((m.from + 1) * (m.to + 1) - 1));
  }
}

TEST(DirectAllToAllValues, NeedsAPieceForEveryRank) {
  testing::ThreadNetwork network(3);
  testing::ThreadTransport transport(network, 0);
  EXPECT_THROW(static_cast<void>(direct_all_to_all_values(transport, std::vector<Buffer>(2))), std::invalid_argument);
}

}  // namespace all_to_all_values_test
}  // namespace dtsim::comm
