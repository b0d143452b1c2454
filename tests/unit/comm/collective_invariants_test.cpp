// The invariant suite every registered collective algorithm must pass on the in-process transport: the
// exact result of its operation on every rank where the operation defines one, bitwise the same from run
// to run, any rank count and any length (including fewer elements than ranks), and a result that does not
// depend on which rank holds which input.

#include "sim/comm/collective_algorithm.hpp"

#include "registered_algorithms.hpp"
#include "thread_transport.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace dtsim::comm {
namespace {

using Values = std::vector<float>;

using testing::algorithms;
using testing::builtin;
using testing::make;

// Small integers keep float sums exact, whatever the order of additions.
std::vector<Values> summable_inputs(int ranks, std::size_t elements) {
  std::vector<Values> out(static_cast<std::size_t>(ranks), Values(elements));
  for (int r = 0; r < ranks; ++r) {
    for (std::size_t i = 0; i < elements; ++i)
      out[static_cast<std::size_t>(r)][i] = static_cast<float>((r + 1) * 1000 + i % 97);
  }
  return out;
}

/// Runs `algorithm` on `buffers` (one per rank) over `network`.
void run_on(const CollectiveAlgorithm& algorithm, std::vector<Values>& buffers, testing::ThreadNetwork& network) {
  testing::run_ranks(network, [&](Transport& transport) {
    algorithm.run(transport, buffers[static_cast<std::size_t>(transport.rank())]);
  });
}

std::vector<Values> run_algorithm(const CollectiveAlgorithm& algorithm, std::vector<Values> buffers) {
  testing::ThreadNetwork network(static_cast<int>(buffers.size()));
  run_on(algorithm, buffers, network);
  return buffers;
}

Values sum_of(const std::vector<Values>& buffers) {
  Values sum(buffers.front().size(), 0.0F);
  for (const auto& buffer : buffers) {
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += buffer[i];
  }
  return sum;
}

Values chunk(const Values& values, int ranks, int index) {
  const ChunkBounds bounds = chunk_bounds(values.size(), ranks, index);
  return {values.begin() + static_cast<std::ptrdiff_t>(bounds.begin),
          values.begin() + static_cast<std::ptrdiff_t>(bounds.end)};
}

/// What the operation defines of rank r's block afterwards, given the inputs.
Values defined_part(Operation operation, const std::vector<Values>& given, int rank) {
  const int p = static_cast<int>(given.size());
  switch (operation) {
    case Operation::allreduce:
      return sum_of(given);
    case Operation::reduce_scatter:
      return chunk(sum_of(given), p, rank);
    case Operation::allgather: {
      Values all;
      for (int r = 0; r < p; ++r) {
        const Values part = chunk(given[static_cast<std::size_t>(r)], p, r);
        all.insert(all.end(), part.begin(), part.end());
      }
      return all;
    }
    case Operation::broadcast:
      return given.front();
    case Operation::reduce:
      return rank == 0 ? sum_of(given) : Values{};
    case Operation::all_to_all: {
      // Piece i from rank i, then what follows the last piece, as it was.
      const std::size_t piece = given.front().size() / static_cast<std::size_t>(p);
      const Values& own = given[static_cast<std::size_t>(rank)];
      Values out;
      for (const Values& sender : given) {
        const auto begin = sender.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(rank) * piece);
        out.insert(out.end(), begin, begin + static_cast<std::ptrdiff_t>(piece));
      }
      out.insert(out.end(), own.begin() + static_cast<std::ptrdiff_t>(piece * given.size()), own.end());
      return out;
    }
  }
  return {};
}

/// The part of a result that the operation defines, to compare with defined_part().
Values observed_part(Operation operation, const Values& result, int ranks, int rank) {
  switch (operation) {
    case Operation::reduce_scatter:
      return chunk(result, ranks, rank);
    case Operation::reduce:
      return rank == 0 ? result : Values{};
    default:
      return result;
  }
}

class CollectiveInvariants : public ::testing::TestWithParam<std::tuple<std::string, int, std::size_t>> {};

TEST_P(CollectiveInvariants, EveryRankEndsWithTheExactResult) {
  const auto [name, ranks, elements] = GetParam();
  const auto algorithm = make(name);
  const std::vector<Values> given = summable_inputs(ranks, elements);
  const std::vector<Values> results = run_algorithm(*algorithm, given);
  for (int r = 0; r < ranks; ++r) {
    EXPECT_EQ(observed_part(algorithm->operation(), results[static_cast<std::size_t>(r)], ranks, r),
              defined_part(algorithm->operation(), given, r))
        << "rank " << r;
  }
}

TEST_P(CollectiveInvariants, ResultDoesNotDependOnWhichRankHoldsWhichInputNorOnTheRun) {
  const auto [name, ranks, elements] = GetParam();
  const auto algorithm = make(name);
  const Operation operation = algorithm->operation();
  std::vector<Values> given = summable_inputs(ranks, elements);
  const std::vector<Values> first = run_algorithm(*algorithm, given);
  // Broadcast, allgather and all-to-all results are by definition particular ranks' inputs; sums must not care.
  if (operation != Operation::broadcast && operation != Operation::allgather && operation != Operation::all_to_all) {
    std::reverse(given.begin(), given.end());
    std::rotate(given.begin(), given.begin() + ranks / 2, given.end());
    const std::vector<Values> relabelled = run_algorithm(*algorithm, given);
    EXPECT_EQ(observed_part(operation, first.front(), ranks, 0),
              observed_part(operation, relabelled.front(), ranks, 0));
  }
  const std::vector<Values> again = run_algorithm(*algorithm, summable_inputs(ranks, elements));
  for (int r = 0; r < ranks; ++r) {
    const auto index = static_cast<std::size_t>(r);
    EXPECT_EQ(observed_part(operation, first[index], ranks, r), observed_part(operation, again[index], ranks, r))
        << "two runs differ on rank " << r;
  }
}

TEST_P(CollectiveInvariants, TimingOnlyBlocksSendTheSameMessages) {
  const auto [name, ranks, elements] = GetParam();
  const auto algorithm = make(name);
  std::vector<Values> buffers = summable_inputs(ranks, elements);
  testing::ThreadNetwork real(ranks);
  run_on(*algorithm, buffers, real);
  testing::ThreadNetwork timing(ranks);
  testing::run_ranks(timing, [&](Transport& transport) { algorithm->run(transport, Block::sized(elements)); });
  const auto sorted = [](std::vector<testing::SentMessage> log) {
    std::sort(log.begin(), log.end(), [](const auto& a, const auto& b) {
      return std::tie(a.from, a.to, a.elements) < std::tie(b.from, b.to, b.elements);
    });
    return log;
  };
  const auto real_log = sorted(real.log());
  const auto timing_log = sorted(timing.log());
  ASSERT_EQ(real_log.size(), timing_log.size());
  for (std::size_t i = 0; i < real_log.size(); ++i) {
    EXPECT_EQ(std::tie(real_log[i].from, real_log[i].to, real_log[i].elements),
              std::tie(timing_log[i].from, timing_log[i].to, timing_log[i].elements));
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, CollectiveInvariants,
                         ::testing::Combine(::testing::ValuesIn(algorithms()), ::testing::Values(1, 2, 3, 5, 8, 13),
                                            ::testing::Values(std::size_t{1}, std::size_t{7}, std::size_t{1000})),
                         [](const auto& param_info) {
                           std::string name = std::get<0>(param_info.param);
                           std::replace(name.begin(), name.end(), '/', '_');
                           return name + "_p" + std::to_string(std::get<1>(param_info.param)) + "_n" +
                                  std::to_string(std::get<2>(param_info.param));
                         });

// With ranks on machines, the hierarchical allreduce sums exactly, whatever the machines are called, and
// refuses machines of different sizes.
TEST(HierarchicalAllreduce, SumsExactlyAcrossMachines) {
  for (const std::vector<int>& machines : {std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}, std::vector<int>{7, 7, 3, 3, 5, 5},
                                           std::vector<int>{0, 1, 2, 0, 1, 2}}) {
    const int ranks = static_cast<int>(machines.size());
    std::vector<Values> buffers = summable_inputs(ranks, 1001);
    const Values expected = sum_of(buffers);
    testing::ThreadNetwork network(ranks, machines);
    run_on(*make("allreduce/hierarchical"), buffers, network);
    for (int r = 0; r < ranks; ++r) EXPECT_EQ(buffers[static_cast<std::size_t>(r)], expected) << "rank " << r;
  }
}

TEST(HierarchicalAllreduce, OnlyAShareOfTheBufferCrossesMachines) {
  const std::vector<int> machines{0, 0, 0, 0, 1, 1, 1, 1};
  testing::ThreadNetwork network(8, machines);
  std::vector<Values> buffers = summable_inputs(8, 4000);
  run_on(*make("allreduce/hierarchical"), buffers, network);
  double across = 0;
  for (const auto& message : network.log()) {
    if (machines[static_cast<std::size_t>(message.from)] != machines[static_cast<std::size_t>(message.to)]) {
      across += static_cast<double>(message.elements);
    }
  }
  // Each of 8 ranks sends its 1000-element chunk across twice (2 machines: one reduce-scatter and one allgather
  // step of 500 elements each way).
  EXPECT_EQ(across, 8 * 2 * 500.0);
}

TEST(HierarchicalAllreduce, RefusesMachinesOfDifferentSizes) {
  // The check comes before any message, so one rank alone shows it.
  testing::ThreadNetwork network(5, {0, 0, 0, 1, 1});
  testing::ThreadTransport rank_zero(network, 0);
  Values data(10, 1.0F);
  EXPECT_THROW(make("allreduce/hierarchical")->run(rank_zero, data), std::invalid_argument);
}

// Distinct values everywhere, so that a piece in the wrong place shows.
std::vector<Values> distinct_inputs(int ranks, std::size_t elements) {
  std::vector<Values> out(static_cast<std::size_t>(ranks), Values(elements));
  for (int r = 0; r < ranks; ++r) {
    for (std::size_t i = 0; i < elements; ++i) out[static_cast<std::size_t>(r)][i] = static_cast<float>(r * 100000 + i);
  }
  return out;
}

// With ranks on machines, numbered in any order, the hierarchical all-to-all delivers every piece where the
// direct one does.
TEST(HierarchicalAllToAll, DeliversEveryPieceAsTheDirectOneDoes) {
  for (const std::vector<int>& machines : {std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}, std::vector<int>{7, 7, 3, 3, 5, 5},
                                           std::vector<int>{0, 1, 2, 0, 1, 2}, std::vector<int>{4, 4, 4}}) {
    const int ranks = static_cast<int>(machines.size());
    for (const std::size_t elements : {std::size_t{1}, std::size_t{ranks * 3U}, std::size_t{1001}}) {
      std::vector<Values> hierarchical = distinct_inputs(ranks, elements);
      std::vector<Values> direct = hierarchical;
      testing::ThreadNetwork on_machines(ranks, machines);
      run_on(*make("all_to_all/hierarchical"), hierarchical, on_machines);
      testing::ThreadNetwork flat(ranks);
      run_on(*make("all_to_all/direct"), direct, flat);
      EXPECT_EQ(hierarchical, direct) << ranks << " ranks, " << elements << " elements";
    }
  }
}

// Each rank sends k-1 messages inside its machine and N-1 across: on 3 machines of 4, with pieces of 10
// elements, 3 of 30 (3 pieces each) and 2 of 40 (4 pieces each), and each piece crosses the fabric once.
TEST(HierarchicalAllToAll, SendsFewerLargerMessagesAcrossMachines) {
  const std::vector<int> machines{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2};
  testing::ThreadNetwork network(12, machines);
  std::vector<Values> buffers = distinct_inputs(12, 120);
  run_on(*make("all_to_all/hierarchical"), buffers, network);
  std::map<std::pair<bool, std::size_t>, int> messages;  // (across, elements) -> count
  for (const auto& message : network.log()) {
    const bool across = machines[static_cast<std::size_t>(message.from)] != machines[static_cast<std::size_t>(message.to)];
    ++messages[{across, message.elements}];
  }
  EXPECT_EQ(messages, (std::map<std::pair<bool, std::size_t>, int>{{{false, 30}, 12 * 3}, {{true, 40}, 12 * 2}}));
}

TEST(HierarchicalAllToAll, RefusesMachinesOfDifferentSizes) {
  testing::ThreadNetwork network(5, {0, 0, 0, 1, 1});
  testing::ThreadTransport rank_zero(network, 0);
  Values data(10, 1.0F);
  EXPECT_THROW(make("all_to_all/hierarchical")->run(rank_zero, data), std::invalid_argument);
}

TEST(CollectiveMessages, TreeSendsWholeBuffersAlongABinomialTree) {
  const int ranks = 6;
  testing::ThreadNetwork network(ranks);
  std::vector<Values> buffers = summable_inputs(ranks, 10);
  run_on(*make("allreduce/tree"), buffers, network);
  std::vector<std::pair<int, int>> edges;
  for (const auto& message : network.log()) {
    EXPECT_EQ(message.elements, 10U);
    edges.emplace_back(message.from, message.to);
  }
  std::sort(edges.begin(), edges.end());
  // Reduce 1->0, 3->2, 5->4, 2->0, 4->0; broadcast back along the same five edges.
  EXPECT_EQ(edges, (std::vector<std::pair<int, int>>{
                       {0, 1}, {0, 2}, {0, 4}, {1, 0}, {2, 0}, {2, 3}, {3, 2}, {4, 0}, {4, 5}, {5, 4}}));
}

TEST(CollectiveMessages, DirectSendsOneChunkToEveryOtherRankTwice) {
  const int ranks = 4;
  testing::ThreadNetwork network(ranks);
  std::vector<Values> buffers = summable_inputs(ranks, 8);
  run_on(*make("allreduce/direct"), buffers, network);
  EXPECT_EQ(network.log().size(), 2U * ranks * (ranks - 1));
  for (const auto& message : network.log()) EXPECT_EQ(message.elements, 2U);
}

}  // namespace
}  // namespace dtsim::comm

namespace dtsim::comm {
namespace {

// Placement rules travel with the entries: the hierarchical allreduce and all-to-all refuse a flat placement
// and uneven nodes (naming the counts); every other algorithm runs on any placement.
TEST(CollectivePlacement, TheHierarchicalAlgorithmsNeedEvenMultiDeviceNodes) {
  const CollectiveCatalog catalog = builtin();
  for (const Operation operation : {Operation::allreduce, Operation::all_to_all}) {
    const CollectivePlugin& hierarchical = catalog.of(operation).find("hierarchical").factory;
    ASSERT_TRUE(hierarchical.refuses);
    const std::vector<int> flat{1, 1, 1, 1};
    const std::vector<int> uneven{4, 2};
    const std::vector<int> even{4, 4};
    EXPECT_NE(hierarchical.refuses(Placement{flat})->message.find("flat"), std::string::npos);
    EXPECT_NE(hierarchical.refuses(Placement{uneven})->message.find("(4, 2 per node)"), std::string::npos);
    EXPECT_FALSE(hierarchical.refuses(Placement{even}).has_value());
  }
  // Placement aside, every other algorithm runs on any even layout of up to 128 ranks.
  const std::vector<int> flat_many(128, 1);
  for (const Operation operation : all_operations()) {
    for (const auto& [name, entry] : catalog.of(operation).entries()) {
      if (name == "hierarchical") continue;
      EXPECT_TRUE(!entry.factory.refuses || !entry.factory.refuses(Placement{flat_many}))
          << to_string(operation) << "/" << name;
    }
  }
}

// Every-to-every algorithms post p(p-1) messages at once: past 128 ranks they are refused with the count.
TEST(CollectivePlacement, TheDirectAlgorithmsAreRefusedPastTheirRankLimit) {
  const CollectiveCatalog catalog = builtin();
  const std::vector<int> ranks_129(129, 1);
  const std::vector<int> nodes_of_eight(512, 8);
  for (const Operation operation : {Operation::allreduce, Operation::reduce_scatter, Operation::allgather}) {
    const CollectivePlugin& direct = catalog.of(operation).find("direct").factory;
    ASSERT_TRUE(direct.refuses) << to_string(operation);
    EXPECT_EQ(direct.refuses(Placement{ranks_129})->message,
              "the direct algorithm posts p(p-1) = 16512 messages at once, and simulates at most 128 ranks (129 here)");
    EXPECT_NE(direct.refuses(Placement{ranks_129})->hint.find("network_model: analytical"), std::string::npos);
    EXPECT_NE(direct.refuses(Placement{nodes_of_eight})->message.find("(4096 here)"), std::string::npos);
    // The analytical network times them from the links' loads up to 4,096 ranks.
    EXPECT_FALSE(direct.refuses(Placement{nodes_of_eight, true}).has_value());
    const std::vector<int> nodes_of_eight_past(513, 8);
    EXPECT_EQ(direct.refuses(Placement{nodes_of_eight_past, true})->message,
              "the direct algorithm posts p(p-1) = 16838712 messages at once, and simulates at most 4096 ranks under "
              "the analytical network (4104 here)");
  }
  EXPECT_FALSE(catalog.broadcast.find("direct").factory.refuses) << "p-1 messages: no limit";
}

// The hierarchical all-to-all's larger round posts p max(k-1, N-1) messages at once: 32 nodes of 8 post
// 256 x 31 = 7,936; 64 nodes of 8 post 512 x 63 = 32,256, past the direct algorithm's 128 x 127 = 16,256.
TEST(CollectivePlacement, TheHierarchicalAllToAllIsRefusedPastTheMessagesTheDirectOneMayPost) {
  const CollectiveCatalog catalog = builtin();
  const CollectivePlugin& hierarchical = catalog.all_to_all.find("hierarchical").factory;
  EXPECT_FALSE(hierarchical.refuses(Placement{std::vector<int>(32, 8)}).has_value());
  EXPECT_EQ(hierarchical.refuses(Placement{std::vector<int>(64, 8), true})->message,
            "the hierarchical all-to-all posts up to 32256 messages at once (64 nodes of 8), and simulates at most 16256");
}

}  // namespace
}  // namespace dtsim::comm
