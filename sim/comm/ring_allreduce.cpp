#include "sim/comm/ring_allreduce.hpp"

#include <algorithm>

namespace dtsim::comm {

void ring_allreduce(Transport& transport, std::span<float> data) {
  const int p = transport.size();
  if (p == 1) return;
  const int rank = transport.rank();
  const int next = (rank + 1) % p;
  const int previous = (rank + p - 1) % p;
  const auto chunk = [&](int index) {
    const ChunkBounds bounds = chunk_bounds(data.size(), p, ((index % p) + p) % p);
    return data.subspan(bounds.begin, bounds.end - bounds.begin);
  };

  for (int step = 0; step < p - 1; ++step) {
    const std::span<float> outgoing = chunk(rank - step);
    const std::span<float> incoming = chunk(rank - step - 1);
    const Buffer arrived = transport.send_recv(next, Buffer(outgoing.begin(), outgoing.end()), previous);
    for (std::size_t i = 0; i < incoming.size(); ++i) incoming[i] += arrived[i];
  }
  for (int step = 0; step < p - 1; ++step) {
    const std::span<float> outgoing = chunk(rank + 1 - step);
    const std::span<float> incoming = chunk(rank - step);
    const Buffer arrived = transport.send_recv(next, Buffer(outgoing.begin(), outgoing.end()), previous);
    std::copy(arrived.begin(), arrived.end(), incoming.begin());
  }
}

core::Seconds ring_allreduce_time(int ranks, core::Bytes size, core::Seconds alpha, core::BytesPerSecond bandwidth) {
  if (ranks <= 1) return core::Seconds(0.0);
  const double p = ranks;
  return (alpha + size / (bandwidth * p)) * (2.0 * (p - 1.0));
}

}  // namespace dtsim::comm

namespace dtsim::comm {

void RingAllreduce::run(Transport& transport, std::span<float> data) const { ring_allreduce(transport, data); }

core::Seconds RingAllreduce::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  return ring_allreduce_time(ranks, size, cost.alpha, cost.bandwidth);
}

}  // namespace dtsim::comm
