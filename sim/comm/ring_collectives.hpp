#pragma once
// Ring collectives around the ring of ranks 0 -> 1 -> ... -> p-1 -> 0, the buffer cut into p chunks.
//
// Reduce-scatter: in each of p-1 steps every rank sends one chunk to its successor and adds the chunk
// arriving from its predecessor into its own copy, so that each rank ends with one chunk fully summed.
// Allgather: p-1 steps pass the complete chunks on. Allreduce is the two in sequence. Each step moves
// about n/p bytes per rank; on a ring of identical full-duplex links (latency alpha, bandwidth B) a step
// takes alpha + n/(pB): (p-1)(alpha + n/(pB)) for reduce-scatter and allgather, twice that for allreduce.

#include "sim/comm/collective_algorithm.hpp"
#include "sim/comm/transport.hpp"
#include "sim/core/units.hpp"

namespace dtsim::comm {

class RingAllreduce final : public CollectiveAlgorithm {
 public:
  [[nodiscard]] Operation operation() const override { return Operation::allreduce; }
  void run(Transport& transport, Block data) const override;
  [[nodiscard]] bool computes_values_in_memory() const override { return true; }
  void values_in_memory(const GroupBlocks& group) const override;
  /// 2(p-1)(alpha + n/(pB)).
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "ring"; }
  [[nodiscard]] bool names_every_rank() const override { return true; }
};

class RingReduceScatter final : public CollectiveAlgorithm {
 public:
  [[nodiscard]] Operation operation() const override { return Operation::reduce_scatter; }
  void run(Transport& transport, Block data) const override;
  [[nodiscard]] bool computes_values_in_memory() const override { return true; }
  void values_in_memory(const GroupBlocks& group) const override;
  /// (p-1)(alpha + n/(pB)).
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "ring"; }
  [[nodiscard]] bool names_every_rank() const override { return true; }
};

class RingAllgather final : public CollectiveAlgorithm {
 public:
  [[nodiscard]] Operation operation() const override { return Operation::allgather; }
  void run(Transport& transport, Block data) const override;
  [[nodiscard]] bool computes_values_in_memory() const override { return true; }
  void values_in_memory(const GroupBlocks& group) const override;
  /// (p-1)(alpha + n/(pB)).
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "ring"; }
  [[nodiscard]] bool names_every_rank() const override { return true; }
};

/// Ring reduce-scatter after which rank r holds the complete sum of chunk (r + 1 + shift) mod p.
void ring_reduce_scatter(Transport& transport, const Block& data, int shift);

/// Ring allgather from a state where rank r holds complete chunk (r + owned) mod p.
void ring_allgather(Transport& transport, const Block& data, int owned);

/// ring_reduce_scatter's values for a whole group at once (`blocks` by rank): the rank that ends with a chunk's
/// complete sum gets it, added in the ring's order; the other chunks are left as they were (where run() leaves
/// partial sums, which the operation does not define).
void ring_reduce_scatter_values(std::span<const std::span<float>> blocks, int shift);
/// ring_allgather's values for a whole group at once: every rank gets each chunk from the rank that owns it.
void ring_allgather_values(std::span<const std::span<float>> blocks, int owned);

/// Closed-form alpha-beta time of a ring allreduce of `size` on `ranks` ranks: 2(p-1)(alpha + n/(pB)).
core::Seconds ring_allreduce_time(int ranks, core::Bytes size, core::Seconds alpha, core::BytesPerSecond bandwidth);

}  // namespace dtsim::comm
