#include "sim/comm/direct_collectives.hpp"

#include <algorithm>
#include <vector>

namespace dtsim::comm {
namespace {

/// Replaces `target` with the sum of `own` (rank `rank`'s contribution) and `received` (one per rank in
/// `from`, ascending), added in rank order from zero so that every rank's sum is bitwise the same.
void sum_in_rank_order(const Block& target, int rank, const Buffer& own, std::span<const int> from,
                       const std::vector<Buffer>& received) {
  target.zero();
  std::size_t next = 0;
  bool own_added = false;
  for (const int r : from) {
    if (!own_added && r > rank) {
      target.add(own);
      own_added = true;
    }
    target.add(received[next++]);
  }
  if (!own_added) target.add(own);
}

/// Timing-only blocks on a transport that times a collective at once: the same messages as this rank's steps
/// (chunks that differ by one element sent as the largest).
bool direct_as_steps(const Transport& transport, const Block& data) {
  return !data.has_values() && transport.times_phases_at_once();
}

/// Every rank sends each other rank a chunk at once: the step of a direct reduce-scatter or allgather.
Step every_to_every(const Transport& transport, const Block& data) {
  const std::vector<int> others = others_than(transport.rank(), transport.size());
  return Step{others, others, chunk_bounds(data.size(), transport.size(), 0).end};
}

void direct_reduce_scatter(Transport& transport, const Block& data) {
  const int p = transport.size();
  const int rank = transport.rank();
  const std::vector<int> others = others_than(rank, p);
  if (direct_as_steps(transport, data)) {
    const Step step = every_to_every(transport, data);
    transport.run_steps(std::span<const Step>(&step, 1));
    return;
  }
  std::vector<Buffer> outgoing;
  outgoing.reserve(others.size());
  for (const int r : others) outgoing.push_back(chunk_of(data, p, r).copy());
  const std::vector<Buffer> contributions = transport.exchange(others, std::move(outgoing), others);
  const Block mine = chunk_of(data, p, rank);
  sum_in_rank_order(mine, rank, mine.copy(), others, contributions);
}

void direct_allgather(Transport& transport, const Block& data) {
  const int p = transport.size();
  const int rank = transport.rank();
  const std::vector<int> others = others_than(rank, p);
  if (direct_as_steps(transport, data)) {
    const Step step = every_to_every(transport, data);
    transport.run_steps(std::span<const Step>(&step, 1));
    return;
  }
  const Buffer mine = chunk_of(data, p, rank).copy();
  const std::vector<Buffer> chunks = transport.exchange(others, std::vector<Buffer>(others.size(), mine), others);
  for (std::size_t i = 0; i < others.size(); ++i) chunk_of(data, p, others[i]).assign(chunks[i]);
}

/// `target` becomes the sum from zero, in rank order, of `part` of every rank's block (`target` may be one of them).
void sum_values_in_rank_order(std::span<float> target, std::span<const std::span<float>> blocks, ChunkBounds part) {
  std::vector<float> sum(part.end - part.begin, 0.0F);
  for (const std::span<float>& block : blocks) {
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += block[part.begin + i];
  }
  std::copy(sum.begin(), sum.end(), target.begin());
}

void reduce_scatter_values(std::span<const std::span<float>> blocks) {
  const auto p = static_cast<int>(blocks.size());
  if (p == 1) return;
  const std::size_t n = blocks.front().size();
  for (int r = 0; r < p; ++r) {
    const ChunkBounds bounds = chunk_bounds(n, p, r);
    sum_values_in_rank_order(blocks[static_cast<std::size_t>(r)].subspan(bounds.begin), blocks, bounds);
  }
}

void allgather_values(std::span<const std::span<float>> blocks) {
  const auto p = static_cast<int>(blocks.size());
  const std::size_t n = blocks.front().size();
  for (int r = 0; r < p; ++r) {
    const ChunkBounds bounds = chunk_bounds(n, p, r);
    const std::span<const float> own = blocks[static_cast<std::size_t>(r)].subspan(bounds.begin, bounds.end - bounds.begin);
    for (int q = 0; q < p; ++q) {
      if (q != r) std::copy(own.begin(), own.end(), blocks[static_cast<std::size_t>(q)].begin() + static_cast<std::ptrdiff_t>(bounds.begin));
    }
  }
}

core::Seconds one_round(core::Bytes size, const AlphaBeta& cost) { return cost.alpha + size / cost.bandwidth; }

}  // namespace

void DirectAllreduce::run(Transport& transport, Block data) const {
  if (transport.size() == 1) return;
  if (direct_as_steps(transport, data)) {
    // Both halves in one schedule: a rank's allgather starts when its own reduce-scatter is done.
    const std::vector<Step> steps(2, every_to_every(transport, data));
    transport.run_steps(steps);
    return;
  }
  direct_reduce_scatter(transport, data);
  direct_allgather(transport, data);
}

void DirectAllreduce::values_in_memory(const GroupBlocks& group) const {
  reduce_scatter_values(group.blocks);
  allgather_values(group.blocks);
}

core::Seconds DirectAllreduce::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  if (ranks <= 1) return core::Seconds(0.0);
  return one_round(size / static_cast<double>(ranks), cost) * 2.0;
}

void DirectReduceScatter::run(Transport& transport, Block data) const {
  if (transport.size() > 1) direct_reduce_scatter(transport, data);
}

void DirectReduceScatter::values_in_memory(const GroupBlocks& group) const { reduce_scatter_values(group.blocks); }

core::Seconds DirectReduceScatter::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  if (ranks <= 1) return core::Seconds(0.0);
  return one_round(size / static_cast<double>(ranks), cost);
}

void DirectAllgather::run(Transport& transport, Block data) const {
  if (transport.size() > 1) direct_allgather(transport, data);
}

void DirectAllgather::values_in_memory(const GroupBlocks& group) const { allgather_values(group.blocks); }

core::Seconds DirectAllgather::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  if (ranks <= 1) return core::Seconds(0.0);
  return one_round(size / static_cast<double>(ranks), cost);
}

void DirectBroadcast::run(Transport& transport, Block data) const {
  const int p = transport.size();
  if (p == 1) return;
  if (direct_as_steps(transport, data)) {
    const Step step = transport.rank() == 0 ? Step{others_than(0, p), {}, data.size()} : Step{{}, {0}, data.size()};
    transport.run_steps(std::span<const Step>(&step, 1));
    return;
  }
  if (transport.rank() != 0) {
    data.assign(transport.recv(0));
    return;
  }
  const std::vector<int> others = others_than(0, p);
  transport.send_to_each(others, std::vector<Buffer>(others.size(), data.copy()));
}

void DirectBroadcast::values_in_memory(const GroupBlocks& group) const {
  const std::span<const float> root = group.blocks.front();
  for (std::size_t r = 1; r < group.blocks.size(); ++r) std::copy(root.begin(), root.end(), group.blocks[r].begin());
}

core::Seconds DirectBroadcast::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  if (ranks <= 1) return core::Seconds(0.0);
  return one_round(size, cost);
}

void DirectReduce::run(Transport& transport, Block data) const {
  const int p = transport.size();
  if (p == 1) return;
  if (direct_as_steps(transport, data)) {
    const Step step = transport.rank() == 0 ? Step{{}, others_than(0, p), data.size()} : Step{{0}, {}, data.size()};
    transport.run_steps(std::span<const Step>(&step, 1));
    return;
  }
  if (transport.rank() != 0) {
    transport.send(0, data.copy());
    return;
  }
  const std::vector<int> others = others_than(0, p);
  sum_in_rank_order(data, 0, data.copy(), others, transport.recv_from_each(others));
}

void DirectReduce::values_in_memory(const GroupBlocks& group) const {
  if (group.blocks.size() == 1) return;
  sum_values_in_rank_order(group.blocks.front(), group.blocks, ChunkBounds{0, group.blocks.front().size()});
}

core::Seconds DirectReduce::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  if (ranks <= 1) return core::Seconds(0.0);
  return one_round(size, cost);
}

}  // namespace dtsim::comm
