#include "sim/runtime/model_parallel/routing_loads.hpp"

namespace dtsim::runtime {

RoutingLoads::RoutingLoads(const models::RoutingSpec& spec, int experts, int top_k, int ranks, std::uint64_t seed,
                           int group)
    : spec_(spec), experts_(experts), top_k_(top_k), ranks_(ranks), seed_(seed), group_(group) {}

const std::vector<double>& RoutingLoads::loads(std::int64_t iteration, int microbatch, int block) const {
  if (iteration != iteration_) {
    drawn_.clear();
    iteration_ = iteration;
  }
  auto [at, fresh] = drawn_.try_emplace({microbatch, block});
  if (fresh) {
    at->second =
        models::draw_routing(spec_, experts_, top_k_, seed_, {iteration, microbatch, block, group_}).rank_loads(ranks_);
  }
  return at->second;
}

}  // namespace dtsim::runtime
