#include "sim/runtime/data_parallel/mirrored_ranks.hpp"

#include "sim/scenario/parallel_layout.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

namespace dtsim::runtime {
namespace {

scenario::ParallelismSpec grid(int tensor, int pipeline, int data, std::vector<scenario::ParallelAxis> placement) {
  scenario::ParallelismSpec plan;
  plan.tensor = tensor;
  plan.pipeline = pipeline;
  plan.data = data;
  plan.placement = std::move(placement);
  return plan;
}

TEST(StandIns, ReplicaZeroStandsForTheSameShareOfEveryReplicaWhateverThePlacement) {
  using enum scenario::ParallelAxis;
  for (const auto& placement : std::vector<std::vector<scenario::ParallelAxis>>{
           {Tensor, Pipeline, Data}, {Data, Tensor, Pipeline}, {Pipeline, Data, Tensor}}) {
    const scenario::ParallelismSpec plan = grid(2, 3, 4, placement);
    const StandIns stand_ins(plan, 24, Mirroring::replicas);
    EXPECT_EQ(stand_ins.simulated().size(), 6U);
    std::vector<int> covered(24, 0);
    for (const int rank : stand_ins.simulated()) {
      const scenario::ParallelCoordinates at = scenario::coordinates_of(plan, rank);
      EXPECT_EQ(at[scenario::ParallelAxis::Data], 0);
      const std::vector<int>& copies = stand_ins.stands_for(rank);
      ASSERT_EQ(copies.size(), 4U);
      EXPECT_EQ(copies.front(), rank);
      for (std::size_t replica = 0; replica < copies.size(); ++replica) {
        const scenario::ParallelCoordinates copy = scenario::coordinates_of(plan, copies[replica]);
        scenario::ParallelCoordinates expected = at;
        expected[scenario::ParallelAxis::Data] = replica;
        EXPECT_EQ(copy, expected);
        EXPECT_EQ(stand_ins.stand_in(copies[replica]), rank);
        ++covered[static_cast<std::size_t>(copies[replica])];
      }
    }
    EXPECT_EQ(covered, std::vector<int>(24, 1));
  }
}

TEST(StandIns, UnderExpertParallelismReplicaZeroStandsForItsExpertGroupsDevicesToo) {
  // The expert groups carved out of the replicas: a replica of a rank is every device holding its share of the
  // dense layers, its expert group's devices among them, in the order of their replica index.
  using enum scenario::ParallelAxis;
  scenario::ParallelismSpec plan = grid(1, 2, 8, {Expert, Data, Pipeline, Tensor});
  plan.expert = 4;
  const StandIns stand_ins(plan, 16, Mirroring::replicas);
  ASSERT_EQ(stand_ins.simulated().size(), 2U);
  for (const int rank : stand_ins.simulated()) {
    const scenario::ParallelCoordinates at = scenario::coordinates_of(plan, rank);
    EXPECT_EQ(at[Data], 0);
    EXPECT_EQ(at[Expert], 0);
    EXPECT_EQ(stand_ins.stands_for(rank), scenario::replica_group(plan, rank));
    EXPECT_EQ(stand_ins.stands_for(rank).size(), 8U);
    for (const int copy : stand_ins.stands_for(rank)) {
      EXPECT_EQ(stand_ins.stand_in(copy), rank);
      EXPECT_EQ(scenario::coordinates_of(plan, copy)[Pipeline], at[Pipeline]);
    }
  }
}

TEST(StandIns, UnderContextParallelismReplicaZeroStandsForItsContextGroupsDevicesToo) {
  // A context group's devices hold the same layers: each is a replica of the others.
  using enum scenario::ParallelAxis;
  scenario::ParallelismSpec plan = grid(2, 2, 2, {Tensor, Context, Pipeline, Data});
  plan.context = 4;
  const StandIns stand_ins(plan, 32, Mirroring::replicas);
  ASSERT_EQ(stand_ins.simulated().size(), 4U);
  for (const int rank : stand_ins.simulated()) {
    const scenario::ParallelCoordinates at = scenario::coordinates_of(plan, rank);
    EXPECT_EQ(at[Data], 0);
    EXPECT_EQ(at[Context], 0);
    ASSERT_EQ(stand_ins.stands_for(rank).size(), 8U);
    for (const int copy : stand_ins.stands_for(rank)) {
      const scenario::ParallelCoordinates there = scenario::coordinates_of(plan, copy);
      EXPECT_EQ(stand_ins.stand_in(copy), rank);
      EXPECT_EQ(there[Pipeline], at[Pipeline]);
      EXPECT_EQ(there[Tensor], at[Tensor]);
    }
  }
}

TEST(StandIns, WorkerZeroStandsForAllOrEachForItself) {
  const scenario::ParallelismSpec plan;
  const StandIns zero(plan, 5, Mirroring::every_worker);
  EXPECT_EQ(zero.simulated(), std::vector<int>{0});
  EXPECT_EQ(zero.stands_for(0), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_TRUE(zero.stands_for(3).empty());
  EXPECT_EQ(zero.stand_in(4), 0);
  const StandIns each(plan, 3, Mirroring::none);
  EXPECT_EQ(each.simulated(), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(each.stands_for(2), std::vector<int>{2});
  EXPECT_EQ(each.stand_in(1), 1);
}

/// Keeps the lanes and messages it hears.
struct Heard final : RunObserver {
  std::vector<int> computing;
  std::vector<std::tuple<std::string, int, int>> messages;  ///< from, to host, to actor
  void on_compute(Lane lane, Span) override { computing.push_back(lane.host); }
  void on_message(std::string_view from, Lane to, Span, double) override {
    messages.emplace_back(std::string(from), to.host, to.actor);
  }
  [[nodiscard]] bool wants_messages() const override { return true; }
};

TEST(MirroredRanks, ALaneOrAMessageOfAStandInIsHeardForEveryReplica) {
  // Tensor 1 x pipeline 2 x data 3: ranks 0 and 1 are replica 0's stages; 2, 3 and 4, 5 the other replicas.
  const scenario::ParallelismSpec plan = grid(1, 2, 3, {scenario::ParallelAxis::Pipeline, scenario::ParallelAxis::Data});
  const StandIns stand_ins(plan, 6, Mirroring::replicas);
  const std::vector<std::string> names{"w0", "w1", "w2", "w3", "w4", "w5"};
  Heard heard;
  MirroredRanks mirrored(heard, stand_ins, names, true);
  mirrored.on_compute(Lane{1, 0}, Span{0.0, 1.0});
  EXPECT_EQ(heard.computing, (std::vector<int>{1, 3, 5}));
  mirrored.on_message("w0", Lane{1, 2}, Span{0.0, 1.0}, 8.0);
  EXPECT_EQ(heard.messages, (std::vector<std::tuple<std::string, int, int>>{{"w0", 1, 2}, {"w2", 3, 2}, {"w4", 5, 2}}));
}

}  // namespace
}  // namespace dtsim::runtime
