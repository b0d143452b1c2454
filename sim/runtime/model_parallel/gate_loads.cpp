#include "sim/runtime/model_parallel/gate_loads.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

namespace dtsim::runtime {

GateLoads::GateLoads(std::size_t experts, int group_size)
    : experts_(experts), group_size_(group_size), per_expert_(experts, 0.0) {}

void GateLoads::add(std::int64_t iteration, int microbatch, int group, int position, std::size_t first,
                    std::span<const std::size_t> tokens) {
  Draw& draw = open_[{iteration, microbatch, group}];
  if (draw.devices.empty()) draw.devices.assign(static_cast<std::size_t>(group_size_), 0.0);
  for (std::size_t l = 0; l < tokens.size(); ++l) {
    per_expert_[first + l] += static_cast<double>(tokens[l]);
    draw.devices[static_cast<std::size_t>(position)] += static_cast<double>(tokens[l]);
  }
  if (++draw.reported < group_size_) return;
  const double routed = std::accumulate(draw.devices.begin(), draw.devices.end(), 0.0);
  const double mean = routed / static_cast<double>(group_size_);
  const double ratio = mean > 0.0 ? *std::max_element(draw.devices.begin(), draw.devices.end()) / mean : 1.0;
  draws_ += 1.0;
  max_loads_ += ratio;
  busiest_ = std::max(busiest_, ratio);
  routed_ += routed;
  open_.erase({iteration, microbatch, group});
}

metrics::RoutingRecord GateLoads::record() const {
  metrics::RoutingRecord out;
  out.learned = true;
  out.tokens_per_expert = per_expert_;
  std::sort(out.tokens_per_expert.begin(), out.tokens_per_expert.end(), std::greater<>());
  for (double& tokens : out.tokens_per_expert) tokens /= std::max(1.0, draws_);
  out.mean_max_load = draws_ > 0.0 ? max_loads_ / draws_ : 1.0;
  out.busiest_load = busiest_;
  // A gate drops nothing: the busiest device's work over even routing's is its load over the mean.
  out.mean_max_work = out.mean_max_load;
  out.busiest_work = out.busiest_load;
  out.routed_tokens = routed_;
  return out;
}

}  // namespace dtsim::runtime
