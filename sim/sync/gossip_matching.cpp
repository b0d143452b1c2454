#include "sim/sync/gossip_matching.hpp"

#include "sim/core/rng.hpp"

#include <fmt/format.h>

#include <numeric>

namespace dtsim::sync {

std::vector<int> random_matching(const std::vector<std::vector<int>>& neighbours, std::uint64_t seed, std::int64_t round) {
  core::RandomEngine engine = core::random_stream(seed, fmt::format("gossip/round/{}", round));
  std::vector<int> order(neighbours.size());
  std::iota(order.begin(), order.end(), 0);
  core::shuffle(std::span<int>(order), engine);
  std::vector<int> partner(neighbours.size(), -1);
  std::vector<int> free;
  for (const int u : order) {
    if (partner[static_cast<std::size_t>(u)] >= 0) continue;
    free.clear();
    for (const int v : neighbours[static_cast<std::size_t>(u)]) {
      if (partner[static_cast<std::size_t>(v)] < 0 && v != u) free.push_back(v);
    }
    if (free.empty()) continue;
    const int v = free[static_cast<std::size_t>(core::uniform_index(engine, free.size()))];
    partner[static_cast<std::size_t>(u)] = v;
    partner[static_cast<std::size_t>(v)] = u;
  }
  return partner;
}

}  // namespace dtsim::sync
