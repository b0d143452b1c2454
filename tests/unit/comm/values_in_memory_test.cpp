// Every built-in algorithm's values computed in memory for the whole group (CollectiveAlgorithm::values_in_memory)
// are bitwise what its messages compute, on inputs whose sums depend on the order of additions; and a group's
// ranks meet call by call to compute them apart (ValueMeeting).

#include "sim/comm/collective_algorithm.hpp"
#include "sim/comm/library_collective.hpp"
#include "sim/comm/values_apart.hpp"

#include "registered_algorithms.hpp"
#include "thread_transport.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <random>

namespace dtsim::comm {
namespace {

using Values = std::vector<float>;

/// Every registered algorithm, and the ring inside a communication library.
std::vector<std::string> with_library() {
  std::vector<std::string> out = testing::algorithms();
  out.emplace_back("allreduce/ring in a library");
  return out;
}

std::unique_ptr<CollectiveAlgorithm> make_one(const std::string& qualified) {
  if (qualified == "allreduce/ring in a library") {
    return std::make_unique<LibraryCollective>(testing::builtin().allreduce.find("ring").factory.make());
  }
  return testing::make(qualified);
}

/// Values of mixed signs and magnitudes: float sums of them differ with the order of additions.
std::vector<Values> rounding_inputs(int ranks, std::size_t elements, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> mantissa(-1.0F, 1.0F);
  std::uniform_int_distribution<int> exponent(-12, 12);
  std::vector<Values> out(static_cast<std::size_t>(ranks), Values(elements));
  for (Values& block : out) {
    for (float& v : block) v = std::ldexp(mantissa(random), exponent(random));
  }
  return out;
}

/// Four ranks to a machine where they divide evenly, two where only two do, one otherwise.
std::vector<int> machines_of(int ranks) {
  const int per_machine = ranks % 4 == 0 ? 4 : ranks % 2 == 0 ? 2 : 1;
  std::vector<int> out;
  for (int r = 0; r < ranks; ++r) out.push_back(r / per_machine);
  return out;
}

/// The bits of what the operation defines of rank `rank`'s block.
std::vector<std::uint32_t> defined_bits(Operation operation, const Values& block, int ranks, int rank) {
  std::size_t begin = 0;
  std::size_t end = block.size();
  if (operation == Operation::reduce_scatter) {
    const ChunkBounds bounds = chunk_bounds(block.size(), ranks, rank);
    begin = bounds.begin;
    end = bounds.end;
  } else if (operation == Operation::reduce && rank != 0) {
    end = 0;
  }
  std::vector<std::uint32_t> out;
  for (std::size_t i = begin; i < end; ++i) out.push_back(std::bit_cast<std::uint32_t>(block[i]));
  return out;
}

class ValuesInMemory : public ::testing::TestWithParam<std::string> {};

TEST_P(ValuesInMemory, AreBitwiseWhatTheMessagesComputeFor2To64Ranks) {
  const auto algorithm = make_one(GetParam());
  ASSERT_TRUE(algorithm->computes_values_in_memory());
  const Operation operation = algorithm->operation();
  int differing_orders = 0;  // cases where another order of additions would have told them apart
  for (const int ranks : {2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 31, 32, 64}) {
    for (const std::size_t elements : {std::size_t{1}, std::size_t{7}, std::size_t{130}, std::size_t{1001}}) {
      const std::vector<int> machines = GetParam().find("hierarchical") != std::string::npos ? machines_of(ranks)
                                                                                           : std::vector<int>{};
      const std::vector<Values> given = rounding_inputs(ranks, elements, static_cast<unsigned>(ranks * 7919 + elements));
      std::vector<Values> by_messages = given;
      testing::ThreadNetwork network(ranks, machines);
      testing::run_ranks(network, [&](Transport& transport) {
        algorithm->run(transport, by_messages[static_cast<std::size_t>(transport.rank())]);
      });
      std::vector<Values> in_memory = given;
      std::vector<std::span<float>> blocks(in_memory.begin(), in_memory.end());
      algorithm->values_in_memory(GroupBlocks{blocks, machines});
      for (int r = 0; r < ranks; ++r) {
        const auto at = static_cast<std::size_t>(r);
        ASSERT_EQ(defined_bits(operation, in_memory[at], ranks, r), defined_bits(operation, by_messages[at], ranks, r))
            << GetParam() << ", " << ranks << " ranks, " << elements << " elements, rank " << r;
      }
      // A plain left-to-right sum in rank order differs somewhere for the sums over many ranks.
      Values plain(elements, 0.0F);
      for (const Values& block : given) {
        for (std::size_t i = 0; i < elements; ++i) plain[i] += block[i];
      }
      if (operation == Operation::allreduce && plain != by_messages.back()) ++differing_orders;
    }
  }
  if (operation == Operation::allreduce && GetParam() != "allreduce/direct") {
    EXPECT_GT(differing_orders, 0) << "inputs too tame to tell orders of additions apart";
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, ValuesInMemory, ::testing::ValuesIn(with_library()), [](const auto& param_info) {
  std::string name = param_info.param;
  std::replace_if(name.begin(), name.end(), [](char c) { return c == '/' || c == ' '; }, '_');
  return name;
});

TEST(ValueMeeting, TheFirstRankOutComputesEveryRanksValuesCallByCall) {
  const auto ring = make_one("allreduce/ring");
  ValueMeeting meeting(3);
  std::vector<Values> first{{1.0F, 2.0F, 3.0F}, {10.0F, 20.0F, 30.0F}, {100.0F, 200.0F, 300.0F}};
  std::vector<Values> second{{1.0F, 1.0F, 1.0F}, {2.0F, 2.0F, 2.0F}, {3.0F, 3.0F, 3.0F}};
  std::vector<std::int64_t> calls;
  for (int r = 0; r < 3; ++r) calls.push_back(meeting.enter(r, first[static_cast<std::size_t>(r)]));
  // Rank 0 enters its second call before the others leave their first.
  EXPECT_EQ(meeting.enter(0, second[0]), 1);
  meeting.leave(calls[1], *ring, {});
  for (const Values& block : first) EXPECT_EQ(block, (Values{111.0F, 222.0F, 333.0F}));
  meeting.leave(calls[0], *ring, {});
  meeting.leave(calls[2], *ring, {});
  EXPECT_EQ(second[0], (Values{1.0F, 1.0F, 1.0F}));  // not yet: ranks 1 and 2 have not entered call 1
  EXPECT_THROW(meeting.leave(1, *ring, {}), std::logic_error);
}

TEST(ValueMeeting, AGroupMeetsWithOneSize) {
  ValueMeetings meetings;
  ValueMeeting& allreduce = meetings.of("allreduce", 4);
  EXPECT_EQ(&meetings.of("allreduce", 4), &allreduce);
  EXPECT_THROW(static_cast<void>(meetings.of("allreduce", 3)), std::logic_error);
}

}  // namespace
}  // namespace dtsim::comm
