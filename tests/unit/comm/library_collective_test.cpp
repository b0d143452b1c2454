// NCCL's cost model by hand: an allreduce of 8 ranks on one node, its network time 14 x (0.1 us + n / (8 x
// 100 GB/s)) (a ring on links of 0.1 us and 100 GB/s), 1.4 us of it latency and b = 14 n / 800 GB/s the
// rest. LL costs 6.6 + 14 x 0.6 = 15.0 us plus 1.4 us plus 4 b, LL128 14.0 + 14 x 1.9 = 40.6 us plus 1.4 us
// plus b / 0.92, Simple 8.4 + 14 x 3.4 = 56.0 us plus 1.4 us plus b: LL wins below b = 25.6 / (4 - 1 / 0.92)
// = 8.7881 us (n = 502,175 bytes), Simple above b = 15.4 / (1 / 0.92 - 1) = 177.1 us (n = 10.12 MB), LL128
// between.

#include "sim/comm/library_collective.hpp"

#include <gtest/gtest.h>

namespace dtsim::comm {
namespace {

NetworkTime network_time(double bytes) { return {14.0 * (0.1e-6 + bytes / (8.0 * 100e9)), 1.4e-6}; }

CallShape allreduce_of(double bytes) { return {Operation::allreduce, 8, 1, bytes}; }

TEST(LibraryCollective, ProtocolCostsAreNcclsRingModel) {
  const NetworkTime t = network_time(1e6);
  const double b = t.total - 1.4e-6;
  EXPECT_NEAR(library_time(Protocol::LL, allreduce_of(1e6), t), 15.0e-6 + 1.4e-6 + 4.0 * b, 1e-15);
  EXPECT_NEAR(library_time(Protocol::LL128, allreduce_of(1e6), t), 40.6e-6 + 1.4e-6 + b / 0.92, 1e-15);
  EXPECT_NEAR(library_time(Protocol::Simple, allreduce_of(1e6), t), 56.0e-6 + 1.4e-6 + b, 1e-15);
}

TEST(LibraryCollective, TheBandwidthShareStretchesTheNetworksBandwidthPartOnly) {
  // All latency: every protocol adds its latency only.
  const NetworkTime empty{2e-6, 2e-6};
  EXPECT_NEAR(library_time(Protocol::LL, allreduce_of(0.0), empty), 15.0e-6 + 2e-6, 1e-15);
  // A latency above the total (a faster route than the transport's estimate) leaves the total as it is.
  const NetworkTime short_route{1e-6, 3e-6};
  EXPECT_NEAR(library_time(Protocol::Simple, allreduce_of(0.0), short_route), 56.0e-6 + 1e-6, 1e-15);
}

TEST(LibraryCollective, SmallMessagesTakeLlLargeOnesSimpleWithTheSwitchSizesByHand) {
  const double ll_to_ll128 = 8.7881e-6 * 8.0 * 100e9 / 14.0;    // 502,175 bytes
  const double ll128_to_simple = 177.1e-6 * 8.0 * 100e9 / 14.0;  // 10.12 MB
  EXPECT_NEAR(ll_to_ll128, 502175.0, 10.0);
  EXPECT_NEAR(ll128_to_simple, 10.12e6, 1e3);
  const auto chosen = [](double bytes) { return chosen_protocol(allreduce_of(bytes), network_time(bytes)); };
  EXPECT_EQ(chosen(1024.0), Protocol::LL);
  EXPECT_EQ(chosen(0.99 * ll_to_ll128), Protocol::LL);
  EXPECT_EQ(chosen(1.01 * ll_to_ll128), Protocol::LL128);
  EXPECT_EQ(chosen(0.99 * ll128_to_simple), Protocol::LL128);
  EXPECT_EQ(chosen(1.01 * ll128_to_simple), Protocol::Simple);
  EXPECT_EQ(chosen(1e9), Protocol::Simple);
  // Small: the library's latency is most of the time; large: the bandwidth is, and the library adds under 1%.
  const double small = library_time(chosen(1024.0), allreduce_of(1024.0), network_time(1024.0));
  EXPECT_GT(15.0e-6 / small, 0.6);
  const double large = library_time(chosen(1e9), allreduce_of(1e9), network_time(1e9));
  EXPECT_LT(large / network_time(1e9).total - 1.0, 0.01);
}

TEST(LibraryCollective, StepsAcrossNodesTakeTheNetworksLatency) {
  // 16 ranks on 2 nodes: NCCL counts 4 of the 30 allreduce steps across nodes (2 per node); the 26 inside a
  // node cost at least the network post's 1 us (3 us for Simple).
  const CallShape call{Operation::allreduce, 16, 2, 1024.0};
  EXPECT_NEAR(library_time(Protocol::LL, call, {}), (6.6 + 26 * 1.0 + 4 * 2.7) * 1e-6, 1e-15);
  EXPECT_NEAR(library_time(Protocol::LL128, call, {}), (14.0 + 26 * 1.9 + 4 * 4.0) * 1e-6, 1e-15);
  // From 16 / 16 x 64 KiB on, Simple's latency takes the ring's plateau factor, 1.9.
  const CallShape large{Operation::allreduce, 16, 2, 65536.0};
  EXPECT_NEAR(library_time(Protocol::Simple, large, {}), 1.9 * (8.4 + 26 * 3.4 + 4 * 14.0) * 1e-6, 1e-15);
  // One rank per node: LL128 keeps 0.7 of the bandwidth, and an allreduce's steps all cross nodes.
  EXPECT_NEAR(library_time(Protocol::LL128, {Operation::allgather, 4, 4, 1e6}, {1.0, 0.0}),
              (14.0 + 3 * 4.0) * 1e-6 + 1.0 / 0.7, 1e-12);
  EXPECT_NEAR(library_time(Protocol::LL, {Operation::allreduce, 4, 4, 1024.0}, {}), (6.6 + 6 * 2.7) * 1e-6, 1e-15);
}

TEST(LibraryCollective, OneRankCostsNothing) {
  EXPECT_EQ(library_time(Protocol::Simple, {Operation::allreduce, 1, 1, 1e6}, {0.25, 0.0}), 0.25);
}

}  // namespace
}  // namespace dtsim::comm
