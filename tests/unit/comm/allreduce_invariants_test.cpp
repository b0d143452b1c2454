// The invariant suite every registered allreduce algorithm must pass on the in-process transport:
// exact elementwise sums on every rank, bitwise the same on all ranks and from run to run, any rank
// count and any length (including fewer elements than ranks), and a result that does not depend on
// which rank holds which input.

#include "sim/comm/allreduce_algorithm.hpp"

#include "thread_transport.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace dtsim::comm {
namespace {

std::vector<std::string> algorithms() {
  AllreduceRegistry registry("allreduce algorithm");
  register_builtin_allreduce(registry);
  return registry.names();
}

// Small integers keep float sums exact, whatever the order of additions.
std::vector<Buffer> inputs(int ranks, std::size_t elements) {
  std::vector<Buffer> out(static_cast<std::size_t>(ranks), Buffer(elements));
  for (int r = 0; r < ranks; ++r) {
    for (std::size_t i = 0; i < elements; ++i) out[static_cast<std::size_t>(r)][i] = static_cast<float>((r + 1) * 1000 + i % 97);
  }
  return out;
}

/// Runs the registered algorithm `name` on `buffers` (one per rank) over `network`.
void run_on(const std::string& name, std::vector<Buffer>& buffers, testing::ThreadNetwork& network) {
  AllreduceRegistry registry("allreduce algorithm");
  register_builtin_allreduce(registry);
  const auto algorithm = registry.find(name).factory();
  testing::run_ranks(network, [&](Transport& transport) {
    algorithm->run(transport, buffers[static_cast<std::size_t>(transport.rank())]);
  });
}

std::vector<Buffer> run_algorithm(const std::string& name, std::vector<Buffer> buffers) {
  testing::ThreadNetwork network(static_cast<int>(buffers.size()));
  run_on(name, buffers, network);
  return buffers;
}

class AllreduceInvariants : public ::testing::TestWithParam<std::tuple<std::string, int, std::size_t>> {};

TEST_P(AllreduceInvariants, EveryRankEndsWithTheExactSum) {
  const auto [name, ranks, elements] = GetParam();
  const std::vector<Buffer> given = inputs(ranks, elements);
  Buffer expected(elements, 0.0F);
  for (const auto& buffer : given) {
    for (std::size_t i = 0; i < elements; ++i) expected[i] += buffer[i];
  }
  const std::vector<Buffer> results = run_algorithm(name, given);
  for (int r = 0; r < ranks; ++r) EXPECT_EQ(results[static_cast<std::size_t>(r)], expected) << "rank " << r;
}

TEST_P(AllreduceInvariants, ResultDoesNotDependOnWhichRankHoldsWhichInput) {
  const auto [name, ranks, elements] = GetParam();
  std::vector<Buffer> given = inputs(ranks, elements);
  const std::vector<Buffer> first = run_algorithm(name, given);
  std::reverse(given.begin(), given.end());
  std::rotate(given.begin(), given.begin() + ranks / 2, given.end());
  const std::vector<Buffer> relabelled = run_algorithm(name, given);
  EXPECT_EQ(first.front(), relabelled.front());
  EXPECT_EQ(first, run_algorithm(name, inputs(ranks, elements))) << "two runs differ";
}

INSTANTIATE_TEST_SUITE_P(Registered, AllreduceInvariants,
                         ::testing::Combine(::testing::ValuesIn(algorithms()), ::testing::Values(1, 2, 3, 5, 8, 13),
                                            ::testing::Values(std::size_t{1}, std::size_t{7}, std::size_t{1000})),
                         [](const auto& param_info) {
                           return std::get<0>(param_info.param) + "_p" + std::to_string(std::get<1>(param_info.param)) +
                                  "_n" + std::to_string(std::get<2>(param_info.param));
                         });

TEST(AllreduceMessages, TreeSendsWholeBuffersAlongABinomialTree) {
  const int ranks = 6;
  testing::ThreadNetwork network(ranks);
  std::vector<Buffer> buffers = inputs(ranks, 10);
  run_on("tree", buffers, network);
  std::vector<std::pair<int, int>> edges;
  for (const auto& message : network.log()) {
    EXPECT_EQ(message.elements, 10U);
    edges.emplace_back(message.from, message.to);
  }
  std::sort(edges.begin(), edges.end());
  // Reduce 1->0, 3->2, 5->4, 2->0, 4->0; broadcast back along the same five edges.
  EXPECT_EQ(edges, (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {0, 4}, {1, 0}, {2, 0}, {2, 3}, {3, 2}, {4, 0}, {4, 5}, {5, 4}}));
}

TEST(AllreduceMessages, DirectSendsOneChunkToEveryOtherRankTwice) {
  const int ranks = 4;
  testing::ThreadNetwork network(ranks);
  std::vector<Buffer> buffers = inputs(ranks, 8);
  run_on("direct", buffers, network);
  EXPECT_EQ(network.log().size(), 2U * ranks * (ranks - 1));
  for (const auto& message : network.log()) EXPECT_EQ(message.elements, 2U);
}

}  // namespace
}  // namespace dtsim::comm
