#include "sim/comm/parameter_server_protocol.hpp"

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
      pulled[static_cast<std::size_t>(transport.rank())] = push_and_pull(transport, kWorkers, Buffer({r, 2 * r}));
    }
  });
  // Gradients (0,0), (1,2), (2,4): mean (1,2).
  for (const Buffer& result : pulled) EXPECT_EQ(result, Buffer({9.0F, 18.0F}));
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
