#include "sim/comm/binomial_tree_collectives.hpp"

#include <algorithm>
#include <vector>

namespace dtsim::comm {
namespace {

/// The rank's lowest set bit: the distance to its parent (rank - mask). Rank 0, the root, gets the first
/// power of two not below p.
int parent_distance(int rank, int ranks) {
  const int top = 1 << binomial_rounds(ranks);
  int mask = 1;
  while (mask < top && (rank & mask) == 0) mask <<= 1;
  return mask;
}

/// Timing-only blocks on a transport that times a collective at once: the same messages as this rank's steps.
bool tree_as_steps(const Transport& transport, const Block& data) {
  return transport.size() > 1 && !data.has_values() && transport.times_phases_at_once();
}

/// The reduce's steps of rank `rank`: a receive from each child, in turn, then the send to its parent.
void reduce_steps(int rank, int p, std::size_t elements, std::vector<Step>& steps) {
  const int up = parent_distance(rank, p);
  for (int mask = 1; mask < up; mask <<= 1) {
    if (rank + mask < p) steps.push_back(Step{{}, {rank + mask}, elements});
  }
  if (rank != 0) steps.push_back(Step{{rank - up}, {}, elements});
}

/// The broadcast's steps of rank `rank`: the receive from its parent, then a send to each child, in turn.
void broadcast_steps(int rank, int p, std::size_t elements, std::vector<Step>& steps) {
  const int up = parent_distance(rank, p);
  if (rank != 0) steps.push_back(Step{{}, {rank - up}, elements});
  for (int mask = up >> 1; mask >= 1; mask >>= 1) {
    if (rank + mask < p) steps.push_back(Step{{rank + mask}, {}, elements});
  }
}

/// Runs this rank's steps of `parts` (the reduce's, the broadcast's, or both in turn) as one collective.
template <class... Parts>
void run_as_steps(Transport& transport, const Block& data, Parts... parts) {
  std::vector<Step> steps;
  (parts(transport.rank(), transport.size(), data.size(), steps), ...);
  transport.run_steps(steps);
}

void binomial_reduce(Transport& transport, const Block& data) {
  if (tree_as_steps(transport, data)) {
    run_as_steps(transport, data, reduce_steps);
    return;
  }
  const int p = transport.size();
  const int rank = transport.rank();
  const int up = parent_distance(rank, p);
  for (int mask = 1; mask < up; mask <<= 1) {
    if (rank + mask < p) data.add(transport.recv(rank + mask));
  }
  if (rank != 0) transport.send(rank - up, data.copy());
}

void binomial_broadcast(Transport& transport, const Block& data) {
  if (tree_as_steps(transport, data)) {
    run_as_steps(transport, data, broadcast_steps);
    return;
  }
  const int p = transport.size();
  const int rank = transport.rank();
  const int up = parent_distance(rank, p);
  if (rank != 0) data.assign(transport.recv(rank - up));
  for (int mask = up >> 1; mask >= 1; mask >>= 1) {
    if (rank + mask < p) transport.send(rank + mask, data.copy());
  }
}

/// binomial_reduce's values for a whole group: every rank adds its children's subtree sums, nearest child first,
/// children before their parents (a child's rank is above its parent's).
void reduce_values(std::span<const std::span<float>> blocks) {
  const auto p = static_cast<int>(blocks.size());
  for (int rank = p - 1; rank >= 0; --rank) {
    const std::span<float> own = blocks[static_cast<std::size_t>(rank)];
    const int up = parent_distance(rank, p);
    for (int mask = 1; mask < up && rank + mask < p; mask <<= 1) {
      const std::span<const float> child = blocks[static_cast<std::size_t>(rank + mask)];
      for (std::size_t i = 0; i < own.size(); ++i) own[i] += child[i];
    }
  }
}

/// binomial_broadcast's values: rank 0's block everywhere.
void broadcast_values(std::span<const std::span<float>> blocks) {
  for (std::size_t r = 1; r < blocks.size(); ++r) std::copy(blocks[0].begin(), blocks[0].end(), blocks[r].begin());
}

core::Seconds tree_time(int ranks, core::Bytes size, const AlphaBeta& cost) {
  return (cost.alpha + size / cost.bandwidth) * static_cast<double>(binomial_rounds(ranks));
}

}  // namespace

int binomial_rounds(int ranks) {
  int rounds = 0;
  while ((1 << rounds) < ranks) ++rounds;
  return rounds;
}

void BinomialTreeAllreduce::run(Transport& transport, Block data) const {
  // One collective of both halves: a rank's broadcast starts when its own part of the reduce is done.
  if (tree_as_steps(transport, data)) {
    run_as_steps(transport, data, reduce_steps, broadcast_steps);
    return;
  }
  binomial_reduce(transport, data);
  binomial_broadcast(transport, data);
}

void BinomialTreeAllreduce::values_in_memory(const GroupBlocks& group) const {
  reduce_values(group.blocks);
  broadcast_values(group.blocks);
}

core::Seconds BinomialTreeAllreduce::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  return tree_time(ranks, size, cost) * 2.0;
}

void BinomialTreeReduce::run(Transport& transport, Block data) const { binomial_reduce(transport, data); }

void BinomialTreeReduce::values_in_memory(const GroupBlocks& group) const { reduce_values(group.blocks); }

core::Seconds BinomialTreeReduce::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  return tree_time(ranks, size, cost);
}

void BinomialTreeBroadcast::run(Transport& transport, Block data) const { binomial_broadcast(transport, data); }

void BinomialTreeBroadcast::values_in_memory(const GroupBlocks& group) const { broadcast_values(group.blocks); }

core::Seconds BinomialTreeBroadcast::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  return tree_time(ranks, size, cost);
}

}  // namespace dtsim::comm
