// On a ring of identical full-duplex links, a ring allreduce of n bytes over p ranks takes
// 2(p-1)(alpha + n/(pB)) under the alpha-beta model. alpha and B are read back from the built topology.

#include "sim/comm/ring_allreduce.hpp"
#include "sim/runtime/collective_run.hpp"
#include "topologies/ring.hpp"

#include <gtest/gtest.h>

namespace dtsim {
namespace {

const scenario::LinkSpec kLink{core::parse_bandwidth("10Gbps"), core::parse_duration("5us")};

std::vector<std::vector<float>> integer_inputs(int ranks, std::size_t elements) {
  std::vector<std::vector<float>> out(static_cast<std::size_t>(ranks), std::vector<float>(elements));
  for (int r = 0; r < ranks; ++r) {
    for (std::size_t i = 0; i < elements; ++i) out[static_cast<std::size_t>(r)][i] = static_cast<float>(r + 1 + i % 7);
  }
  return out;
}

class RingAllreduceOnRing : public ::testing::TestWithParam<std::tuple<int, double>> {};

TEST_P(RingAllreduceOnRing, MatchesAlphaBetaClosedForm) {
  const auto [ranks, size_bytes] = GetParam();
  const topology::TopologyGraph graph = topologies::build_ring(ranks, kLink);
  const core::Seconds alpha = graph.link(0).latency;
  const core::BytesPerSecond bandwidth = graph.link(0).bandwidth;
  const auto elements = static_cast<std::size_t>(size_bytes / 4);

  const runtime::CollectiveOutcome outcome =
      runtime::simulate_ring_allreduce(graph, scenario::NetworkModel::AlphaBeta, integer_inputs(ranks, elements));

  const double predicted = comm::ring_allreduce_time(ranks, core::Bytes(size_bytes), alpha, bandwidth).value();
  EXPECT_NEAR(outcome.simulated_s, predicted, 1e-3 * predicted);
  // The real sums arrived too: element i is sum over r of (r + 1 + i % 7).
  for (const auto& result : outcome.results) {
    for (std::size_t i = 0; i < elements; i += 4099) {
      ASSERT_EQ(result[i], static_cast<float>(ranks * (ranks + 1) / 2 + ranks * static_cast<int>(i % 7)));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(RanksAndSizes, RingAllreduceOnRing,
                         ::testing::Combine(::testing::Values(2, 3, 8, 16),
                                            ::testing::Values(1024.0, 1048576.0, 67108864.0)),
                         [](const auto& param_info) {
                           return "p" + std::to_string(std::get<0>(param_info.param)) + "_" +
                                  std::to_string(static_cast<long>(std::get<1>(param_info.param))) + "B";
                         });

TEST(RingAllreduceOnRing, TcpModelIsSlowerThanAlphaBeta) {
  // SimGrid's calibrated TCP model multiplies latency by 13.01 and bandwidth by 0.97, so the same
  // allreduce must take longer than the textbook time.
  const topology::TopologyGraph graph = topologies::build_ring(4, kLink);
  const double predicted = comm::ring_allreduce_time(4, core::Bytes(1048576.0), kLink.latency, kLink.bandwidth).value();
  const auto outcome = runtime::simulate_ring_allreduce(graph, scenario::NetworkModel::Tcp, integer_inputs(4, 262144));
  EXPECT_GT(outcome.simulated_s, predicted * 1.01);
}

}  // namespace
}  // namespace dtsim
