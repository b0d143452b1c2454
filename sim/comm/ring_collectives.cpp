#include "sim/comm/ring_collectives.hpp"

namespace dtsim::comm {
namespace {

/// p-1 ring steps: in step s a rank sends chunk (rank + first - s) and receives chunk (rank + first - s - 1),
/// which `combine` merges into its block.
template <class Combine>
void ring_phase(Transport& transport, const Block& data, int first, Combine combine) {
  const int p = transport.size();
  if (p == 1) return;
  const int rank = transport.rank();
  const int next = (rank + 1) % p;
  const int previous = (rank + p - 1) % p;
  if (!data.has_values() && (data.size() % static_cast<std::size_t>(p) == 0 || transport.times_phases_at_once())) {
    // Timing-only with equal chunks: every rank's every step is the same, which a transport may exploit.
    // (A transport that times phases at once takes uneven chunks as the largest, one element more at most.)
    transport.shift_rounds(next, previous, chunk_bounds(data.size(), p, 0).end, p - 1);
    return;
  }
  for (int step = 0; step < p - 1; ++step) {
    const Block outgoing = chunk_of(data, p, rank + first - step);
    const Block incoming = chunk_of(data, p, rank + first - step - 1);
    combine(incoming, transport.send_recv(next, outgoing.copy(), previous));
  }
}

core::Seconds ring_phase_time(int ranks, core::Bytes size, const AlphaBeta& cost) {
  if (ranks <= 1) return core::Seconds(0.0);
  const double p = ranks;
  return (cost.alpha + size / (cost.bandwidth * p)) * (p - 1.0);
}

}  // namespace

void ring_reduce_scatter(Transport& transport, const Block& data, int shift) {
  ring_phase(transport, data, shift, [](const Block& into, const Buffer& arrived) { into.add(arrived); });
}

void ring_allgather(Transport& transport, const Block& data, int owned) {
  ring_phase(transport, data, owned, [](const Block& into, const Buffer& arrived) { into.assign(arrived); });
}

core::Seconds ring_allreduce_time(int ranks, core::Bytes size, core::Seconds alpha, core::BytesPerSecond bandwidth) {
  return ring_phase_time(ranks, size, AlphaBeta{alpha, bandwidth}) * 2.0;
}

void RingAllreduce::run(Transport& transport, Block data) const {
  ring_reduce_scatter(transport, data, 0);
  ring_allgather(transport, data, 1);
}

core::Seconds RingAllreduce::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  return ring_allreduce_time(ranks, size, cost.alpha, cost.bandwidth);
}

void RingReduceScatter::run(Transport& transport, Block data) const { ring_reduce_scatter(transport, data, -1); }

core::Seconds RingReduceScatter::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  return ring_phase_time(ranks, size, cost);
}

void RingAllgather::run(Transport& transport, Block data) const { ring_allgather(transport, data, 0); }

core::Seconds RingAllgather::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  return ring_phase_time(ranks, size, cost);
}

}  // namespace dtsim::comm
