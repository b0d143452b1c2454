#pragma once
// Direct collectives: every message goes straight from its source to its destination, all of a round at
// once. On a full mesh, where each pair of ranks has its own link, nothing is shared.
//
// Reduce-scatter: every rank sends chunk j to rank j, which adds the contributions in rank order:
// one round of p-1 concurrent messages of n/p bytes, alpha + n/(pB). Allgather: every rank sends its
// chunk to every other: alpha + n/(pB). Allreduce is the two: 2(alpha + n/(pB)). Broadcast: rank 0 sends
// the whole buffer to every other rank at once; reduce: every rank sends it to rank 0, which adds them in
// rank order: alpha + n/B each.

#include "sim/comm/collective_algorithm.hpp"

namespace dtsim::comm {

class DirectAllreduce final : public CollectiveAlgorithm {
 public:
  [[nodiscard]] Operation operation() const override { return Operation::allreduce; }
  void run(Transport& transport, Block data) const override;
  [[nodiscard]] bool computes_values_in_memory() const override { return true; }
  void values_in_memory(const GroupBlocks& group) const override;
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

class DirectReduceScatter final : public CollectiveAlgorithm {
 public:
  [[nodiscard]] Operation operation() const override { return Operation::reduce_scatter; }
  void run(Transport& transport, Block data) const override;
  [[nodiscard]] bool computes_values_in_memory() const override { return true; }
  void values_in_memory(const GroupBlocks& group) const override;
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

class DirectAllgather final : public CollectiveAlgorithm {
 public:
  [[nodiscard]] Operation operation() const override { return Operation::allgather; }
  void run(Transport& transport, Block data) const override;
  [[nodiscard]] bool computes_values_in_memory() const override { return true; }
  void values_in_memory(const GroupBlocks& group) const override;
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

class DirectBroadcast final : public CollectiveAlgorithm {
 public:
  [[nodiscard]] Operation operation() const override { return Operation::broadcast; }
  void run(Transport& transport, Block data) const override;
  [[nodiscard]] bool computes_values_in_memory() const override { return true; }
  void values_in_memory(const GroupBlocks& group) const override;
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

class DirectReduce final : public CollectiveAlgorithm {
 public:
  [[nodiscard]] Operation operation() const override { return Operation::reduce; }
  void run(Transport& transport, Block data) const override;
  [[nodiscard]] bool computes_values_in_memory() const override { return true; }
  void values_in_memory(const GroupBlocks& group) const override;
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

}  // namespace dtsim::comm
