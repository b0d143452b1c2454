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
  // Ring j enters machine b at its rank (j + offset[b]) mod per and leaves it at (j + offset[b + 1]) mod per,
  // the rank by which it enters machine b + 1, so that every hop between machines joins ranks of the same
  // place on theirs. Offsets that differ from one machine to the next, and close the ring: 0, 1 alternating
  // over an even count of machines; 0, 1, 2, then 1, 2 alternating over an odd one (with 3 ranks or more).
  // Two ranks on an odd count of machines cannot close so: the offsets then fall by one a machine, and the
  // closing hop joins different places.
  const auto machines_count = static_cast<int>(starts.size());
  std::vector<int> offset(starts.size() + 1);
  const bool rotated = machines_count % 2 == 1 && per < 3;
  for (int b = 0; b < machines_count; ++b) {
    if (rotated) {
      offset[static_cast<std::size_t>(b)] = ((-b) % per + per) % per;
    } else if (machines_count % 2 == 0 || b < 3) {
      offset[static_cast<std::size_t>(b)] = machines_count % 2 == 0 ? b % 2 : b;
    } else {
      offset[static_cast<std::size_t>(b)] = b % 2 == 1 ? 1 : 2;
    }
  }
  offset.back() = rotated ? ((-machines_count) % per + per) % per : 0;
  auto rings = std::make_shared<RingSet::Rings>();
  for (int j = 0; j < per; ++j) {
    auto ring = std::make_shared<std::vector<int>>();
    ring->reserve(machines.size());
    for (std::size_t b = 0; b < starts.size(); ++b) {
      const int enter = (j + offset[b]) % per;
      const int leave = (j + offset[b + 1]) % per;
      // Entered at `enter`, the others in order, left at `leave`.
      ring->push_back(starts[b] + enter);
      for (int i = 1; i < per; ++i) {
        const int local = (enter + i) % per;
        if (local != leave) ring->push_back(starts[b] + local);
      }
      if (leave != enter) ring->push_back(starts[b] + leave);
    }
    rings->push_back(std::move(ring));
  }
  return rings;
}

}  // namespace dtsim::comm
