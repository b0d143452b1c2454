#include "sim/scenario/parallel_layout.hpp"

#include "sim/scenario/expert_grid.hpp"
#include "sim/scenario/parallel_axes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <vector>

namespace dtsim::scenario {
namespace {

ParallelismSpec grid(int data, int tensor, int pipeline, std::vector<ParallelAxis> placement) {
  ParallelismSpec out;
  out.data = data;
  out.tensor = tensor;
  out.pipeline = pipeline;
  out.placement = std::move(placement);
  return out;
}

ParallelCoordinates coordinates(int tensor, int pipeline, int data) {
  ParallelCoordinates out;
  out[ParallelAxis::Tensor] = tensor;
  out[ParallelAxis::Pipeline] = pipeline;
  out[ParallelAxis::Data] = data;
  return out;
}

// By default a tensor group is consecutive ranks (one node of 8 GPUs), then a pipeline's stages, then the
// replicas, as Megatron-LM orders them.
TEST(ParallelLayout, TheInnermostDegreeVariesFastest) {
  const ParallelismSpec plan = grid(2, 8, 4, {ParallelAxis::Tensor, ParallelAxis::Pipeline, ParallelAxis::Data});
  EXPECT_EQ(coordinates_of(plan, 0), coordinates(0, 0, 0));
  EXPECT_EQ(coordinates_of(plan, 9), coordinates(1, 1, 0));
  EXPECT_EQ(coordinates_of(plan, 63), coordinates(7, 3, 1));
  EXPECT_EQ(group_along(plan, 9, ParallelAxis::Tensor), (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(group_along(plan, 9, ParallelAxis::Pipeline), (std::vector<int>{1, 9, 17, 25}));
  EXPECT_EQ(group_along(plan, 9, ParallelAxis::Data), (std::vector<int>{9, 41}));
  const ParallelismSpec data_first = grid(2, 8, 4, {ParallelAxis::Data, ParallelAxis::Tensor, ParallelAxis::Pipeline});
  EXPECT_EQ(group_along(data_first, 0, ParallelAxis::Data), (std::vector<int>{0, 1}));
  EXPECT_EQ(group_along(data_first, 0, ParallelAxis::Tensor), (std::vector<int>{0, 2, 4, 6, 8, 10, 12, 14}));
}

TEST(ParallelLayout, EveryRankHasOnePlaceInEveryOrder) {
  const std::vector<std::vector<ParallelAxis>> orders{
      {ParallelAxis::Tensor, ParallelAxis::Pipeline, ParallelAxis::Data},
      {ParallelAxis::Pipeline, ParallelAxis::Data, ParallelAxis::Tensor},
      {ParallelAxis::Data, ParallelAxis::Tensor, ParallelAxis::Pipeline}};
  for (const auto& order : orders) {
    const ParallelismSpec plan = grid(3, 2, 4, order);
    std::set<std::tuple<int, int, int>> seen;
    for (int rank = 0; rank < 24; ++rank) {
      const ParallelCoordinates at = coordinates_of(plan, rank);
      EXPECT_EQ(rank_of(plan, at), rank);
      seen.insert({at[ParallelAxis::Tensor], at[ParallelAxis::Pipeline], at[ParallelAxis::Data]});
    }
    EXPECT_EQ(seen.size(), 24U);
  }
}

// Every axis's group through every rank, in every order of the axes: the degree's ranks, the rank among
// them at its own coordinate, each differing from it along that axis alone.
TEST(ParallelLayout, AGroupAlongAnAxisVariesThatCoordinateAlone) {
  std::vector<ParallelAxis> order;
  for (const AxisEntry& entry : parallel_axes()) order.push_back(entry.axis);
  std::sort(order.begin(), order.end());
  do {
    const ParallelismSpec plan = grid(3, 2, 4, order);
    for (int rank = 0; rank < 24; ++rank) {
      const ParallelCoordinates at = coordinates_of(plan, rank);
      for (const AxisEntry& entry : parallel_axes()) {
        const std::vector<int> group = group_along(plan, rank, entry.axis);
        ASSERT_EQ(static_cast<int>(group.size()), degree_of(plan, entry.axis));
        EXPECT_EQ(group[static_cast<std::size_t>(at[entry.axis])], rank);
        for (int i = 0; i < static_cast<int>(group.size()); ++i) {
          ParallelCoordinates expected = at;
          expected[entry.axis] = i;
          EXPECT_EQ(coordinates_of(plan, group[static_cast<std::size_t>(i)]), expected);
        }
      }
    }
  } while (std::next_permutation(order.begin(), order.end()));
}

// A group's name is its label, then the other coordinates, outermost axis first (the table's rows reversed: data,
// pipeline, expert, expert_tensor, context, tensor): every group of a run has its own channels.
TEST(ParallelLayout, GroupNamesListTheOtherCoordinatesOutermostFirst) {
  ParallelCoordinates at = coordinates(1, 2, 3);
  at[ParallelAxis::Expert] = 4;
  at[ParallelAxis::Context] = 5;
  at[ParallelAxis::ExpertTensor] = 6;
  EXPECT_EQ(group_name(axis_entry(ParallelAxis::Pipeline).groups, at, ParallelAxis::Pipeline), "pipeline/3/4/6/5/1");
  EXPECT_EQ(group_name(axis_entry(ParallelAxis::Data).groups, at, ParallelAxis::Data), "replicas/2/4/6/5/1");
  EXPECT_EQ(group_name(axis_entry(ParallelAxis::Tensor).groups, at, ParallelAxis::Tensor), "tensor/3/2/4/6/5");
  EXPECT_EQ(group_name(axis_entry(ParallelAxis::Expert).groups, at, ParallelAxis::Expert), "experts/3/2/6/5/1");
  EXPECT_EQ(group_name(axis_entry(ParallelAxis::Context).groups, at, ParallelAxis::Context), "context/3/2/4/6/1");
  EXPECT_EQ(group_name(axis_entry(ParallelAxis::ExpertTensor).groups, at, ParallelAxis::ExpertTensor),
            "expert-tensor/3/2/4/5/1");
  const std::array replicas{ParallelAxis::Context, ParallelAxis::ExpertTensor, ParallelAxis::Expert,
                            ParallelAxis::Data};
  EXPECT_EQ(group_name("gradients", at, replicas), "gradients/2/1");
}

// A context group's devices reduce their gradients with the replicas (Megatron-LM's data x context group):
// with context 2 and data 3, a device's replica group is its 6 counterparts, context innermost.
TEST(ParallelLayout, AContextGroupReducesItsGradientsWithTheReplicas) {
  ParallelismSpec plan = grid(3, 2, 2, {ParallelAxis::Tensor, ParallelAxis::Context, ParallelAxis::Pipeline,
                                        ParallelAxis::Data});
  plan.context = 2;
  const int rank = 1 + 2 * (1 + 2 * (1 + 2 * 2));  // tensor 1, context 1, stage 1, replica 2
  const ParallelCoordinates at = coordinates_of(plan, rank);
  EXPECT_EQ(at[ParallelAxis::Context], 1);
  EXPECT_EQ(at[ParallelAxis::Data], 2);
  EXPECT_EQ(replica_index(plan, at), 1 + 2 * 2);
  const std::vector<int> replicas = replica_group(plan, rank);
  ASSERT_EQ(replicas.size(), 6U);
  EXPECT_EQ(replicas[5], rank);
  EXPECT_EQ(group_along(plan, rank, ParallelAxis::Context), std::vector<int>(replicas.begin() + 4, replicas.end()));
}

// Expert parallelism carves the expert groups out of the replicas (Megatron-LM's expert_model_parallel_size):
// data 8 with expert 4 is 2 replicas of each expert share along the data axis, and a device's replicas of the
// dense layers are all 8, their index expert + 4 x data, each expert group consecutive in it.
TEST(ParallelLayout, ExpertGroupsAreCarvedOutOfTheReplicas) {
  ParallelismSpec plan = grid(8, 2, 3, {ParallelAxis::Tensor, ParallelAxis::Expert, ParallelAxis::Pipeline,
                                        ParallelAxis::Data});
  plan.expert = 4;
  EXPECT_EQ(degree_of(plan, ParallelAxis::Expert), 4);
  EXPECT_EQ(degree_of(plan, ParallelAxis::Data), 2);
  // Tensor rank 1, expert rank 2, stage 1, data coordinate 1: t + 2 (e + 4 (p + 3 d)).
  ParallelCoordinates at = coordinates(1, 1, 1);
  at[ParallelAxis::Expert] = 2;
  const int rank = rank_of(plan, at);
  EXPECT_EQ(rank, 1 + 2 * (2 + 4 * (1 + 3 * 1)));
  EXPECT_EQ(coordinates_of(plan, rank), at);
  EXPECT_EQ(replica_index(plan, at), 2 + 4 * 1);
  const std::vector<int> replicas = replica_group(plan, rank);
  ASSERT_EQ(replicas.size(), 8U);
  EXPECT_EQ(replicas[static_cast<std::size_t>(replica_index(plan, at))], rank);
  for (std::size_t i = 0; i < replicas.size(); ++i) {
    const ParallelCoordinates other = coordinates_of(plan, replicas[i]);
    EXPECT_EQ(other[ParallelAxis::Tensor], 1);
    EXPECT_EQ(other[ParallelAxis::Pipeline], 1);
    EXPECT_EQ(replica_index(plan, other), static_cast<int>(i));
  }
  // The expert group: the same replica of the data axis, every expert coordinate.
  const std::vector<int> experts = group_along(plan, rank, ParallelAxis::Expert);
  EXPECT_EQ(experts, std::vector<int>(replicas.begin() + 4, replicas.end()));
}

// The axes' table is the one home of their names: each found by its name, its degree read from the plan.
TEST(ParallelAxes, EachAxisIsFoundByItsNameAndReadsItsDegree) {
  const ParallelismSpec plan = grid(5, 6, 7, {ParallelAxis::Tensor, ParallelAxis::Pipeline, ParallelAxis::Data});
  std::set<std::string_view> names;
  for (const AxisEntry& entry : parallel_axes()) {
    EXPECT_EQ(axis_named(entry.name), entry.axis);
    EXPECT_EQ(&axis_entry(entry.axis), &entry);
    names.insert(entry.name);
  }
  EXPECT_EQ(names.size(), kParallelAxes);
  EXPECT_EQ(degree_of(plan, ParallelAxis::Data), 5);
  EXPECT_EQ(degree_of(plan, ParallelAxis::Tensor), 6);
  EXPECT_EQ(degree_of(plan, ParallelAxis::Pipeline), 7);
  EXPECT_EQ(degree_of(plan, ParallelAxis::Expert), 1);
  EXPECT_EQ(degree_of(plan, ParallelAxis::Context), 1);
  EXPECT_FALSE(axis_named("sequence").has_value());
}

// The planner's order (labels, plan.csv's columns, flags) and the enum's (summary.json's optional keys) come from
// the table: tensor, pipeline, context, expert_tensor, expert, data; and tensor, pipeline, data, expert, context,
// expert_tensor.
TEST(ParallelAxes, ListTheirDegreesInThePlannersOrderAndTheEnumsOrder) {
  using A = ParallelAxis;
  EXPECT_EQ(listing_order(),
            (std::vector<A>{A::Tensor, A::Pipeline, A::Context, A::ExpertTensor, A::Expert, A::Data}));
  EXPECT_EQ(declaration_order(),
            (std::vector<A>{A::Tensor, A::Pipeline, A::Data, A::Expert, A::Context, A::ExpertTensor}));
  std::string labels;
  for (const A axis : listing_order()) labels += std::string(axis_entry(axis).label) + " ";
  EXPECT_EQ(labels, "t p c et e d ");
}

// A degree is read and written through its row, and the model-parallel question asks every axis but the replicas'.
TEST(ParallelAxes, ReadAndWriteTheDegreeEachRowPointsAt) {
  ParallelismSpec plan = grid(8, 1, 1, {ParallelAxis::Tensor, ParallelAxis::Pipeline, ParallelAxis::Data});
  EXPECT_FALSE(plan.is_model_parallel());
  for (const AxisEntry& entry : parallel_axes()) {
    set_declared_degree(plan, entry.axis, 2);
    EXPECT_EQ(declared_degree(plan, entry.axis), 2) << entry.name;
    EXPECT_EQ(plan.is_model_parallel(), entry.axis != ParallelAxis::Data) << entry.name;
    set_declared_degree(plan, entry.axis, entry.axis == ParallelAxis::Data ? 8 : 1);
  }
  plan.expert = 4;
  EXPECT_EQ(placed_degree(declared_degrees(plan), ParallelAxis::Data), 2);
  EXPECT_EQ(declared_degrees(plan)[axis_index(ParallelAxis::Expert)], 4);
}

// ZeRO partitions the dense weights over data x context devices, the routed experts' over data / expert (the
// formulas device_memory used before the table).
TEST(ParallelAxes, SharingReplicasAreDataTimesContextAndDataOverExpert) {
  ParallelismSpec plan = grid(8, 2, 2, {ParallelAxis::Tensor, ParallelAxis::Pipeline, ParallelAxis::Data});
  plan.context = 3;
  plan.expert = 4;
  EXPECT_EQ(sharing_replicas(plan, Weights::Dense), 8 * 3);
  EXPECT_EQ(sharing_replicas(plan, Weights::Experts), 8 / 4);
  EXPECT_EQ(sharing_axes(plan, Weights::Dense),
            (std::vector<ParallelAxis>{ParallelAxis::Context, ParallelAxis::ExpertTensor, ParallelAxis::Expert,
                                       ParallelAxis::Data}));
  // A placement that leaves the optional axes out gets them right after tensor, context first.
  place_optional_axes(plan);
  using A = ParallelAxis;
  EXPECT_EQ(plan.placement, (std::vector<A>{A::Tensor, A::Context, A::Expert, A::Pipeline, A::Data}));
}

/// A plan of `data` x `tensor` x `pipeline` placed tensor, pipeline, data, its routed experts on their own grid of
/// `expert` x `expert_tensor`.
ParallelismSpec experts_on_their_grid(int data, int tensor, int pipeline, int expert, int expert_tensor) {
  ParallelismSpec out = grid(data, tensor, pipeline, {ParallelAxis::Tensor, ParallelAxis::Pipeline, ParallelAxis::Data});
  out.expert = expert;
  out.expert_tensor = expert_tensor;
  out.expert_tensor_declared = true;
  place_optional_axes(out);
  return out;
}

// Declared, expert tensor parallelism gives the experts Megatron-Core's own grid: expert-tensor x expert x
// expert-data laid over a stage's devices in rank order, expert-tensor innermost. Data 8 x tensor 2 with expert 2 and
// expert_tensor 2: the expert-tensor groups are the tensor pairs, the expert groups every other device, and the
// devices holding the same experts every fourth.
TEST(ParallelLayout, TheExpertsOwnGridIsLaidOverAStagesDevicesInRankOrder) {
  using A = ParallelAxis;
  ParallelismSpec plan = experts_on_their_grid(8, 2, 1, 2, 2);
  // The experts' axes place no rank: rank t + 2 d.
  EXPECT_EQ(plan.placement, (std::vector<A>{A::Tensor, A::Pipeline, A::Data}));
  EXPECT_EQ(degree_of(plan, A::Data), 8);
  EXPECT_EQ(degree_of(plan, A::Expert), 1);
  EXPECT_EQ(group_along(plan, 0, A::ExpertTensor), (std::vector<int>{0, 1}));
  EXPECT_EQ(group_along(plan, 0, A::Expert), (std::vector<int>{0, 2}));
  EXPECT_EQ(group_along(plan, 9, A::Expert), (std::vector<int>{9, 11}));
  EXPECT_EQ(expert_grid_group(plan, 9, ExpertGridAxis::ExpertData), (std::vector<int>{1, 5, 9, 13}));
  EXPECT_EQ(expert_place(plan, coordinates_of(plan, 9)), (ExpertPlace{.expert_tensor = 1, .expert = 0, .expert_data = 2}));
  EXPECT_EQ(expert_grid_degree(plan, ExpertGridAxis::ExpertData), 4);
  EXPECT_EQ(expert_grid_name("experts", plan, coordinates_of(plan, 9), ExpertGridAxis::Expert), "experts/0/2/1");
  EXPECT_EQ(replica_group(plan, 0), (std::vector<int>{0, 2, 4, 6, 8, 10, 12, 14}));
  EXPECT_EQ(sharing_replicas(plan, Weights::Dense), 8);
  EXPECT_EQ(sharing_replicas(plan, Weights::Experts), 2 * 8 / (2 * 2));
  EXPECT_EQ(expert_groups_routing(plan), 8);
  EXPECT_EQ(expert_group_of(plan, coordinates_of(plan, 9)), 2 * 2 + 1);
  EXPECT_TRUE(experts_apart(plan));
  // Undeclared, the expert groups are carved out of the replicas, and the tensor group splits the experts' matrices:
  // their replicas are the data axis's alone.
  plan.expert_tensor = 1;
  plan.expert_tensor_declared = false;
  plan.placement = {A::Tensor, A::Pipeline, A::Data};
  place_optional_axes(plan);
  EXPECT_EQ(group_along(plan, 0, A::Expert), (std::vector<int>{0, 2}));
  EXPECT_EQ(sharing_axes(plan, Weights::Experts), (std::vector<A>{A::Data}));
  EXPECT_EQ(sharing_replicas(plan, Weights::Experts), 8 / 2);
  EXPECT_EQ(expert_place(plan, coordinates_of(plan, 9)), (ExpertPlace{.expert_tensor = 0, .expert = 0, .expert_data = 2}));
  EXPECT_TRUE(experts_apart(plan));
  plan.expert = 1;
  EXPECT_FALSE(experts_apart(plan));
  // Declared at 1 under tensor 2, the experts are whole on each device and held alike by its tensor group.
  plan.expert_tensor_declared = true;
  EXPECT_TRUE(experts_apart(plan));
}

// Megatron-Core's parallel folding: an expert group larger than the data-parallel degree spans the tensor groups'
// devices. Expert 8 beside tensor 2 x data 4 over 2 stages (rank t + 2 (p + 2 d)): each stage's 8 devices are one
// expert group, each device holding one expert whole for its own half of a sequence's tokens.
TEST(ParallelLayout, AnExpertGroupFoldedOverTensorAndDataSpansAStage) {
  using A = ParallelAxis;
  const ParallelismSpec plan = experts_on_their_grid(4, 2, 2, 8, 1);
  EXPECT_EQ(stage_devices(plan), 8);
  EXPECT_EQ(group_along(plan, 5, A::Expert), (std::vector<int>{0, 1, 4, 5, 8, 9, 12, 13}));
  EXPECT_EQ(group_along(plan, 2, A::Expert), (std::vector<int>{2, 3, 6, 7, 10, 11, 14, 15}));
  EXPECT_EQ(expert_place(plan, coordinates_of(plan, 5)).expert, 3);
  EXPECT_EQ(expert_grid_degree(plan, ExpertGridAxis::ExpertData), 1);
  EXPECT_EQ(expert_groups_routing(plan), 1);
  // Every device's groups partition the ranks: each rank is in exactly one expert group of its stage.
  std::set<std::vector<int>> groups;
  for (int rank = 0; rank < 16; ++rank) groups.insert(group_along(plan, rank, A::Expert));
  EXPECT_EQ(groups.size(), 2U);
}

// What a device's routed experts are divided by: the tensor degree where expert_tensor is not declared (as before
// the axis), the expert-tensor degree alone where it is; the dense layers by the tensor degree either way.
TEST(ParallelLayout, TheExpertTensorDegreeAloneSplitsTheExpertsWhereDeclared) {
  TrainingSpec training;
  training.parallelism = grid(8, 2, 1, {ParallelAxis::Tensor, ParallelAxis::Pipeline, ParallelAxis::Data});
  training.parallelism.expert = 4;
  training.parallelism.sequence_parallel = true;
  const models::DeviceShare undeclared = device_share_of(training);
  EXPECT_EQ(undeclared.tensor, 2);
  EXPECT_EQ(undeclared.expert, 4);
  EXPECT_EQ(undeclared.expert_matrices, 2);
  EXPECT_FALSE(undeclared.expert_grid);
  training.parallelism.expert_tensor_declared = true;
  const models::DeviceShare whole = device_share_of(training);
  EXPECT_EQ(whole.tensor, 2);
  EXPECT_EQ(whole.expert_matrices, 1);
  EXPECT_TRUE(whole.expert_grid);
  training.parallelism.expert_tensor = 2;
  EXPECT_EQ(device_share_of(training).expert_matrices, 2);
  EXPECT_EQ(device_share_of(training).tensor, 2);
}

}  // namespace
}  // namespace dtsim::scenario
