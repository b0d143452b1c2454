#pragma once
// An expert group's routing over a run under uneven routing (models/expert_routing.hpp): each device's load
// for every mixture block of every micro-batch, drawn from the scenario's seed and the draw's key, so that
// every device of the group (and every tensor rank beside it, which holds the same tokens) draws the same
// without exchanging a word.

#include "models/expert_routing.hpp"

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace dtsim::runtime {

class RoutingLoads {
 public:
  /// `experts` routed experts per block, each token sent to `top_k` of them, over the `ranks` devices of
  /// expert group `group` (its replica coordinate: groups route their own tokens).
  RoutingLoads(const models::RoutingSpec& spec, int experts, int top_k, int ranks, std::uint64_t seed, int group);

  /// Each device's load (its experts' kept share x ranks) for mixture block `block` of micro-batch
  /// `microbatch` of step `iteration`; draws of earlier steps are forgotten.
  [[nodiscard]] const std::vector<double>& loads(std::int64_t iteration, int microbatch, int block) const;

 private:
  models::RoutingSpec spec_;
  int experts_;
  int top_k_;
  int ranks_;
  std::uint64_t seed_;
  int group_;
  mutable std::int64_t iteration_ = -1;
  mutable std::map<std::tuple<int, int>, std::vector<double>> drawn_;  ///< by micro-batch and block
};

}  // namespace dtsim::runtime
