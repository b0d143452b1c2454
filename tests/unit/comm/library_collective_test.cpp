// NCCL's cost model by hand: an allreduce of 8 ranks on one node, its network time 14 x (0.1 us + n / (8 x
// 100 GB/s)) (a ring on links of 0.1 us and 100 GB/s). LL costs 3.6 + 14 x 0.47 = 10.18 us plus 4 x the
// network time, LL128 10.0 + 14 x 1.9 = 36.6 us plus the time / 0.92, Simple 8.4 + 14 x 3.4 = 56.0 us plus
// the time: LL wins below a network time of 26.42 / (4 - 1 / 0.92) = 9.0697 us (n = 438,269 bytes), Simple
// above 19.4 / (1 / 0.92 - 1) = 223.10 us (n = 12.668 MB), LL128 between.

#include "sim/comm/library_collective.hpp"

#include <gtest/gtest.h>

namespace dtsim::comm {
namespace {

double network_time(double bytes) { return 14.0 * (0.1e-6 + bytes / (8.0 * 100e9)); }

CallShape allreduce_of(double bytes) { return {Operation::allreduce, 8, 1, bytes}; }

TEST(LibraryCollective, ProtocolCostsAreNcclsRingModel) {
  const double t = network_time(1e6);
  EXPECT_NEAR(library_time(Protocol::LL, allreduce_of(1e6), t), 10.18e-6 + 4.0 * t, 1e-15);
  EXPECT_NEAR(library_time(Protocol::LL128, allreduce_of(1e6), t), 36.6e-6 + t / 0.92, 1e-15);
  EXPECT_NEAR(library_time(Protocol::Simple, allreduce_of(1e6), t), 56.0e-6 + t, 1e-15);
}

TEST(LibraryCollective, SmallMessagesTakeLlLargeOnesSimpleWithTheSwitchSizesByHand) {
  const double ll_to_ll128 = (9.0697e-6 - 1.4e-6) * 8.0 * 100e9 / 14.0;    // 438,269 bytes
  const double ll128_to_simple = (223.1e-6 - 1.4e-6) * 8.0 * 100e9 / 14.0;  // 12.668 MB
  EXPECT_NEAR(ll_to_ll128, 438269.0, 10.0);
  EXPECT_NEAR(ll128_to_simple, 12.668e6, 1e3);
  const auto chosen = [](double bytes) { return chosen_protocol(allreduce_of(bytes), network_time(bytes)); };
  EXPECT_EQ(chosen(1024.0), Protocol::LL);
  EXPECT_EQ(chosen(0.99 * ll_to_ll128), Protocol::LL);
  EXPECT_EQ(chosen(1.01 * ll_to_ll128), Protocol::LL128);
  EXPECT_EQ(chosen(0.99 * ll128_to_simple), Protocol::LL128);
  EXPECT_EQ(chosen(1.01 * ll128_to_simple), Protocol::Simple);
  EXPECT_EQ(chosen(1e9), Protocol::Simple);
  // Small: the latency is most of the time; large: the bandwidth is, and the library adds under 1%.
  const double small = library_time(chosen(1024.0), allreduce_of(1024.0), network_time(1024.0));
  EXPECT_GT(10.18e-6 / small, 0.6);
  const double large = library_time(chosen(1e9), allreduce_of(1e9), network_time(1e9));
  EXPECT_LT(large / network_time(1e9) - 1.0, 0.01);
}

TEST(LibraryCollective, StepsAcrossNodesTakeTheNetworksLatency) {
  // 16 ranks on 2 nodes: 2 of the 30 allreduce steps cross nodes; LL's steps inside a node cost 1.8 x.
  const CallShape call{Operation::allreduce, 16, 2, 1024.0};
  EXPECT_NEAR(library_time(Protocol::LL, call, 0.0), (3.6 + 28 * 0.47 * 1.8 + 2 * 2.7) * 1e-6, 1e-15);
  EXPECT_NEAR(library_time(Protocol::LL128, call, 0.0), (10.0 + 28 * 1.9 + 2 * 4.0) * 1e-6, 1e-15);
  // From 16 / 16 x 64 KiB on, Simple's latency takes the ring's plateau factor, 1.9.
  const CallShape large{Operation::allreduce, 16, 2, 65536.0};
  EXPECT_NEAR(library_time(Protocol::Simple, large, 0.0), 1.9 * (8.4 + 28 * 3.4 + 2 * 9.6) * 1e-6, 1e-15);
  // One rank per node: LL128 keeps 0.7 of the bandwidth.
  EXPECT_NEAR(library_time(Protocol::LL128, {Operation::allgather, 4, 4, 1e6}, 1.0), (10.0 + 3 * 4.0) * 1e-6 + 1.0 / 0.7,
              1e-12);
}

TEST(LibraryCollective, OneRankCostsNothing) {
  EXPECT_EQ(library_time(Protocol::Simple, {Operation::allreduce, 1, 1, 1e6}, 0.25), 0.25);
}

}  // namespace
}  // namespace dtsim::comm
