#include "sim/comm/ring_collectives.hpp"

#include <algorithm>
#include <vector>

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

int wrapped(int index, int p) { return ((index % p) + p) % p; }

}  // namespace

void ring_reduce_scatter_values(std::span<const std::span<float>> blocks, int shift) {
  const auto p = static_cast<int>(blocks.size());
  if (p <= 1) return;
  const std::size_t n = blocks.front().size();
  std::vector<float> sum;
  for (int c = 0; c < p; ++c) {
    const ChunkBounds bounds = chunk_bounds(n, p, c);
    if (bounds.begin == bounds.end) continue;
    const std::size_t length = bounds.end - bounds.begin;
    // Chunk c sets out from rank c - shift with that rank's values; each step's receiver adds its own to it.
    const int first = wrapped(c - shift, p);
    const std::span<const float> start = blocks[static_cast<std::size_t>(first)].subspan(bounds.begin, length);
    sum.assign(start.begin(), start.end());
    for (int step = 1; step < p; ++step) {
      const std::span<const float> own = blocks[static_cast<std::size_t>((first + step) % p)].subspan(bounds.begin, length);
      for (std::size_t i = 0; i < length; ++i) sum[i] = own[i] + sum[i];
    }
    std::copy(sum.begin(), sum.end(), blocks[static_cast<std::size_t>((first + p - 1) % p)].begin() + static_cast<std::ptrdiff_t>(bounds.begin));
  }
}

void ring_allgather_values(std::span<const std::span<float>> blocks, int owned) {
  const auto p = static_cast<int>(blocks.size());
  if (p <= 1) return;
  const std::size_t n = blocks.front().size();
  for (int c = 0; c < p; ++c) {
    const ChunkBounds bounds = chunk_bounds(n, p, c);
    const auto owner = static_cast<std::size_t>(wrapped(c - owned, p));
    const std::span<const float> complete = blocks[owner].subspan(bounds.begin, bounds.end - bounds.begin);
    for (std::size_t r = 0; r < blocks.size(); ++r) {
      if (r != owner) std::copy(complete.begin(), complete.end(), blocks[r].begin() + static_cast<std::ptrdiff_t>(bounds.begin));
    }
  }
}

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

void RingAllreduce::values_in_memory(const GroupBlocks& group) const {
  ring_reduce_scatter_values(group.blocks, 0);
  ring_allgather_values(group.blocks, 1);
}

core::Seconds RingAllreduce::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  return ring_allreduce_time(ranks, size, cost.alpha, cost.bandwidth);
}

void RingReduceScatter::run(Transport& transport, Block data) const { ring_reduce_scatter(transport, data, -1); }

void RingReduceScatter::values_in_memory(const GroupBlocks& group) const { ring_reduce_scatter_values(group.blocks, -1); }

core::Seconds RingReduceScatter::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  return ring_phase_time(ranks, size, cost);
}

void RingAllgather::run(Transport& transport, Block data) const { ring_allgather(transport, data, 0); }

void RingAllgather::values_in_memory(const GroupBlocks& group) const { ring_allgather_values(group.blocks, 0); }

core::Seconds RingAllgather::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  return ring_phase_time(ranks, size, cost);
}

}  // namespace dtsim::comm
