#include "sim/scenario/parallel_layout.hpp"

#include <gtest/gtest.h>

#include <set>

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

// By default a tensor group is consecutive ranks (one node of 8 GPUs), then a pipeline's stages, then the
// replicas, as Megatron-LM orders them.
TEST(ParallelLayout, TheInnermostDegreeVariesFastest) {
  const ParallelismSpec plan = grid(2, 8, 4, {ParallelAxis::Tensor, ParallelAxis::Pipeline, ParallelAxis::Data});
  EXPECT_EQ(coordinates_of(plan, 0), (ParallelCoordinates{0, 0, 0}));
  EXPECT_EQ(coordinates_of(plan, 9), (ParallelCoordinates{1, 1, 0}));
  EXPECT_EQ(coordinates_of(plan, 63), (ParallelCoordinates{7, 3, 1}));
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
      seen.insert({at.tensor, at.pipeline, at.data});
    }
    EXPECT_EQ(seen.size(), 24U);
  }
}

}  // namespace
}  // namespace dtsim::scenario
