#include "sim/comm/parameter_server_protocol.hpp"

#include "sim/comm/collective_algorithm.hpp"

#include "thread_transport.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace dtsim::comm {
namespace {

TEST(ParameterServerProtocol, ServerAppliesTheMeanAndEveryWorkerGetsTheResult) {
  constexpr int kWorkers = 3;
  testing::ThreadNetwork network(kWorkers + 1);
  std::vector<Buffer> pulled(kWorkers);
  std::vector<float> parameters{10.0F, 20.0F};
  testing::run_ranks(network, [&](Transport& transport) {
    if (transport.rank() == kWorkers) {
      std::vector<int> workers(kWorkers);
      std::iota(workers.begin(), workers.end(), 0);
      serve_round(transport, workers, [&](const Buffer& mean) {
        for (std::size_t i = 0; i < parameters.size(); ++i) parameters[i] -= mean.values()[i];
        return Buffer(parameters);
      });
    } else {
      const auto r = static_cast<float>(transport.rank());
      const std::vector<int> servers{kWorkers};
      pulled[static_cast<std::size_t>(transport.rank())] = push_and_pull(transport, servers, Buffer({r, 2 * r}));
    }
  });
  // Gradients (0,0), (1,2), (2,4): mean (1,2).
  for (const Buffer& result : pulled) EXPECT_EQ(result, Buffer({9.0F, 18.0F}));
}

// Sharded by key range over two servers: server 0 holds parameters [0, 3), server 1 [3, 5); every worker
// ends with the same parameters one server holding all five would give.
TEST(ParameterServerProtocol, ShardsByKeyRangeGiveWhatOneServerGives) {
  constexpr int kWorkers = 3;
  constexpr int kShards = 2;
  testing::ThreadNetwork network(kWorkers + kShards);
  std::vector<Buffer> pulled(kWorkers);
  const std::vector<float> initial{10.0F, 20.0F, 30.0F, 40.0F, 50.0F};
  std::vector<std::size_t> shard_sizes(kShards);
  testing::run_ranks(network, [&](Transport& transport) {
    if (transport.rank() >= kWorkers) {
      const int shard = transport.rank() - kWorkers;
      const ChunkBounds range = chunk_bounds(initial.size(), kShards, shard);
      std::vector<float> parameters(initial.begin() + static_cast<std::ptrdiff_t>(range.begin),
                                    initial.begin() + static_cast<std::ptrdiff_t>(range.end));
      std::vector<int> workers(kWorkers);
      std::iota(workers.begin(), workers.end(), 0);
      serve_round(transport, workers, [&](const Buffer& mean) {
        shard_sizes[static_cast<std::size_t>(shard)] = mean.size();
        for (std::size_t i = 0; i < parameters.size(); ++i) parameters[i] -= mean.values()[i];
        return Buffer(parameters);
      });
    } else {
      const auto r = static_cast<float>(transport.rank());
      const std::vector<int> servers{kWorkers, kWorkers + 1};
      pulled[static_cast<std::size_t>(transport.rank())] =
          push_and_pull(transport, servers, Buffer({r, r, r, 2 * r, 2 * r}));
    }
  });
  EXPECT_EQ(shard_sizes, (std::vector<std::size_t>{3, 2}));
  // Mean gradient (1, 1, 1, 2, 2).
  for (const Buffer& result : pulled) EXPECT_EQ(result, Buffer({9.0F, 19.0F, 29.0F, 38.0F, 48.0F}));
}

TEST(ParameterServerProtocol, ShardedPushTimeSplitsTheServerLoad) {
  // 4 workers, 2 shards: a worker link carries 2 flows of n/2, a server link 4; with equal links the
  // server side decides: each flow gets B/4, so n/2 takes 2n/B (against 4n/B with one server).
  const auto one = push_time(4, core::Bytes(1e6), core::Seconds(0), core::BytesPerSecond(1e9), core::Seconds(0),
                             core::BytesPerSecond(1e9));
  const auto two = push_time(4, core::Bytes(1e6), core::Seconds(0), core::BytesPerSecond(1e9), core::Seconds(0),
                             core::BytesPerSecond(1e9), 2);
  EXPECT_DOUBLE_EQ(one.value(), 4e-3);
  EXPECT_DOUBLE_EQ(two.value(), 2e-3);
}

TEST(ParameterServerProtocol, MeanOfBuffers) {
  EXPECT_EQ(mean_of({Buffer({1.0F, 2.0F}), Buffer({3.0F, 6.0F})}), Buffer({2.0F, 4.0F}));
  EXPECT_THROW(mean_of({Buffer({1.0F}), Buffer({1.0F, 2.0F})}), std::invalid_argument);
  EXPECT_EQ(mean_of({Buffer::sized(3), Buffer::sized(3)}), Buffer::sized(3));
}

TEST(ParameterServerProtocol, PushTimeSharesTheServerLink) {
  // 4 workers at 1 GB/s into a 2 GB/s server link: each flow gets 0.5 GB/s.
  const auto time = push_time(4, core::Bytes(1e6), core::Seconds(1e-6), core::BytesPerSecond(1e9), core::Seconds(2e-6),
                              core::BytesPerSecond(2e9));
  EXPECT_DOUBLE_EQ(time.value(), 3e-6 + 1e6 / 0.5e9);
}

}  // namespace
}  // namespace dtsim::comm
