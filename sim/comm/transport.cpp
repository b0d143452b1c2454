#include "sim/comm/transport.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace dtsim::comm {

RingPeers parallel_ring_peers(const RingSet& phase, int rank) {
  if (!phase.parallel || phase.rings == nullptr || phase.places == nullptr) {
    throw std::logic_error("peers asked of rings that are not parallel, or without their places");
  }
  RingPeers out;
  for (std::size_t r = 0; r < phase.rings->size(); ++r) {
    const std::vector<int>& ring = *(*phase.rings)[r];
    const auto size = static_cast<int>(ring.size());
    const int at = (*phase.places)[r].at(static_cast<std::size_t>(rank));
    const int shift = (phase.shift % size + size) % size;
    out.to.push_back(ring[static_cast<std::size_t>((at + shift) % size)]);
    out.from.push_back(ring[static_cast<std::size_t>((at - shift + size) % size)]);
  }
  return out;
}

std::size_t Step::elements_sent() const {
  if (sizes.empty()) return to.size() * elements;
  return std::accumulate(sizes.begin(), sizes.end(), std::size_t{0});
}

std::shared_ptr<const std::vector<std::vector<int>>> ring_places(const RingSet::Rings& rings, int ranks) {
  auto places = std::make_shared<std::vector<std::vector<int>>>();
  for (const auto& ring : rings) {
    std::vector<int> place(static_cast<std::size_t>(ranks), -1);
    for (std::size_t at = 0; at < ring->size(); ++at) place.at(static_cast<std::size_t>((*ring)[at])) = static_cast<int>(at);
    if (std::find(place.begin(), place.end(), -1) != place.end()) {
      throw std::logic_error("a parallel ring must hold every rank");
    }
    places->push_back(std::move(place));
  }
  return places;
}

}  // namespace dtsim::comm
