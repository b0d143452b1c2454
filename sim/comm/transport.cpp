#include "sim/comm/transport.hpp"

#include <stdexcept>

namespace dtsim::comm {

RingPeers parallel_ring_peers(const RingSet& phase, int rank) {
  if (!phase.parallel || phase.rings == nullptr) throw std::logic_error("peers asked of rings that are not parallel");
  RingPeers out;
  for (const auto& ring : *phase.rings) {
    const auto size = static_cast<int>(ring->size());
    int at = 0;
    while (at < size && (*ring)[static_cast<std::size_t>(at)] != rank) ++at;
    if (at == size) throw std::logic_error("a parallel ring must hold every rank");
    const int shift = (phase.shift % size + size) % size;
    out.to.push_back((*ring)[static_cast<std::size_t>((at + shift) % size)]);
    out.from.push_back((*ring)[static_cast<std::size_t>((at - shift + size) % size)]);
  }
  return out;
}

}  // namespace dtsim::comm
