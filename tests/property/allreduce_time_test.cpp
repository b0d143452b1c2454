// Every registered allreduce algorithm, simulated on the built-in topology where none of its messages
// share a link (a ring for ring allreduce, a full mesh for the others), takes exactly its closed-form
// alpha-beta time; alpha and B are read back from the built topology. The real sums arrive too.

#include "sim/comm/allreduce_algorithm.hpp"
#include "sim/runtime/collective_run.hpp"
#include "topologies/fat_tree.hpp"
#include "topologies/mesh.hpp"
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

std::unique_ptr<comm::AllreduceAlgorithm> make(const std::string& name) {
  comm::AllreduceRegistry registry("allreduce algorithm");
  comm::register_builtin_allreduce(registry);
  return registry.find(name).factory();
}

topology::TopologyGraph uncontended_topology(const comm::AllreduceAlgorithm& algorithm, int ranks) {
  return algorithm.uncontended_on() == "ring" ? topologies::build_ring(ranks, kLink) : topologies::build_mesh(ranks, kLink);
}

class AllreduceOnItsTopology : public ::testing::TestWithParam<std::tuple<std::string, int, double>> {};

TEST_P(AllreduceOnItsTopology, MatchesItsAlphaBetaClosedForm) {
  const auto [name, ranks, size_bytes] = GetParam();
  const auto algorithm = make(name);
  const topology::TopologyGraph graph = uncontended_topology(*algorithm, ranks);
  const comm::AlphaBeta cost{graph.link(0).latency, graph.link(0).bandwidth};
  const auto elements = static_cast<std::size_t>(size_bytes / 4);

  const runtime::CollectiveOutcome outcome = runtime::simulate_allreduce(
      graph, scenario::NetworkModel::AlphaBeta, *algorithm, integer_inputs(ranks, elements));

  const double predicted = algorithm->predicted_time(ranks, core::Bytes(size_bytes), cost).value();
  EXPECT_NEAR(outcome.simulated_s, predicted, 1e-3 * predicted);
  // Element i is the sum over r of (r + 1 + i % 7), on every rank.
  for (const auto& result : outcome.results) {
    for (std::size_t i = 0; i < elements; i += 4099) {
      ASSERT_EQ(result[i], static_cast<float>(ranks * (ranks + 1) / 2 + ranks * static_cast<int>(i % 7)));
    }
  }
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<std::string, int, double>>& param_info) {
  return std::get<0>(param_info.param) + "_p" + std::to_string(std::get<1>(param_info.param)) + "_" +
         std::to_string(static_cast<long>(std::get<2>(param_info.param))) + "B";
}

// Buffers are real, so memory grows with ranks x size: the largest sizes run on up to 16 ranks.
INSTANTIATE_TEST_SUITE_P(Ring, AllreduceOnItsTopology,
                         ::testing::Combine(::testing::Values("ring"), ::testing::Values(2, 3, 5, 8, 16),
                                            ::testing::Values(1024.0, 1048576.0, 67108864.0)),
                         case_name);

INSTANTIATE_TEST_SUITE_P(ManyRanks, AllreduceOnItsTopology,
                         ::testing::Combine(::testing::Values("ring", "tree", "halving_doubling", "direct"),
                                            ::testing::Values(64), ::testing::Values(1024.0, 1048576.0)),
                         case_name);

INSTANTIATE_TEST_SUITE_P(Mesh, AllreduceOnItsTopology,
                         ::testing::Combine(::testing::Values("tree", "halving_doubling", "direct"),
                                            ::testing::Values(2, 3, 5, 8, 16),
                                            ::testing::Values(1024.0, 1048576.0, 16777216.0)),
                         case_name);

// Contention is real. A direct allreduce on 16 ranks sends, in each of its two rounds, 15 chunks of n/16
// from every rank at once: each worker's own link carries 15 flows, so no round can end before
// 15 (n/16)/B. With 4 workers per leaf, each leaf sends 48 of its flows to other leaves. Over 4 spines
// that is 12 flows per uplink on average, fewer than a worker link's 15, so the worker links decide
// (the hash may load one uplink a little more). Over 2 spines (oversubscription 2) it is 24 per uplink:
// the spines decide, and each round takes about 24/15 = 1.6 times longer.
double worker_link_bound(std::size_t elements) { return 2 * 15 * (4.0 * static_cast<double>(elements) / 16) / kLink.bandwidth.value(); }

constexpr std::size_t kContentionElements = 1 << 20;

TEST(Contention, AFullBisectionFatTreeRunsAtTheWorkerLinkBound) {
  const auto outcome = runtime::simulate_allreduce(topologies::build_fat_tree(16, 4, 1.0, kLink),
                                                   scenario::NetworkModel::AlphaBeta, *make("direct"),
                                                   integer_inputs(16, kContentionElements));
  const double bound = worker_link_bound(kContentionElements);
  EXPECT_GE(outcome.simulated_s, bound);
  EXPECT_LE(outcome.simulated_s, 1.2 * bound) << outcome.simulated_s << " s against " << bound << " s";
  RecordProperty("simulated_s", std::to_string(outcome.simulated_s));
  RecordProperty("worker_link_bound_s", std::to_string(bound));
}

TEST(Contention, AnOversubscribedFatTreeIsLimitedByItsSpines) {
  const auto outcome = runtime::simulate_allreduce(topologies::build_fat_tree(16, 4, 2.0, kLink),
                                                   scenario::NetworkModel::AlphaBeta, *make("direct"),
                                                   integer_inputs(16, kContentionElements));
  const double bound = worker_link_bound(kContentionElements);
  EXPECT_GE(outcome.simulated_s, 1.5 * bound) << outcome.simulated_s << " s against " << bound << " s";
  RecordProperty("simulated_s", std::to_string(outcome.simulated_s));
  RecordProperty("worker_link_bound_s", std::to_string(bound));
}

TEST(AllreduceOnItsTopology, TcpModelIsSlowerThanAlphaBeta) {
  // SimGrid's calibrated TCP model multiplies latency by 13.01 and bandwidth by 0.97, so the same
  // allreduce must take longer than the textbook time.
  const auto ring = make("ring");
  const topology::TopologyGraph graph = topologies::build_ring(4, kLink);
  const double predicted = ring->predicted_time(4, core::Bytes(1048576.0), {kLink.latency, kLink.bandwidth}).value();
  const auto outcome =
      runtime::simulate_allreduce(graph, scenario::NetworkModel::Tcp, *ring, integer_inputs(4, 262144));
  EXPECT_GT(outcome.simulated_s, predicted * 1.01);
}

}  // namespace
}  // namespace dtsim
