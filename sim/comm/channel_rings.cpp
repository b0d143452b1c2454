#include "sim/comm/channel_rings.hpp"

#include <algorithm>
#include <vector>

namespace dtsim::comm {

std::shared_ptr<const RingSet::Rings> channel_rings(std::span<const int> machines) {
  // Blocks of consecutive ranks on one machine: [start, start + per) for each machine.
  std::vector<int> starts;
  std::vector<int> seen;
  for (std::size_t r = 0; r < machines.size(); ++r) {
    if (r > 0 && machines[r] == machines[r - 1]) continue;
    if (std::find(seen.begin(), seen.end(), machines[r]) != seen.end()) return nullptr;  // a machine's ranks apart
    seen.push_back(machines[r]);
    starts.push_back(static_cast<int>(r));
  }
  if (starts.size() < 2) return nullptr;
  const int per = static_cast<int>(machines.size()) / static_cast<int>(starts.size());
  if (per < 2) return nullptr;
  for (std::size_t b = 0; b < starts.size(); ++b) {
    if (starts[b] != static_cast<int>(b) * per) return nullptr;  // machines with unequal shares
  }
  auto rings = std::make_shared<RingSet::Rings>();
  for (int j = 0; j < per; ++j) {
    auto ring = std::make_shared<std::vector<int>>();
    ring->reserve(machines.size());
    for (const int start : starts) {
      for (int i = 0; i < per; ++i) ring->push_back(start + (j + i) % per);
    }
    rings->push_back(std::move(ring));
  }
  return rings;
}

}  // namespace dtsim::comm
