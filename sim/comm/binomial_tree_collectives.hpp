#pragma once
// Binomial-tree collectives rooted at rank 0.
//
// Reduce: in round k (mask 2^k), a rank whose lowest set bit is 2^k sends its partial sum to rank - 2^k
// and is done; a rank below it adds what rank + 2^k sends. After ceil(log2 p) rounds rank 0 holds the
// sum. Broadcast runs the same tree backwards; allreduce is reduce then broadcast. Every message carries
// the whole buffer, so on a network where each round's pairs have their own links reduce and broadcast
// take ceil(log2 p)(alpha + n/B), allreduce twice that.

#include "sim/comm/collective_algorithm.hpp"

namespace dtsim::comm {

class BinomialTreeAllreduce final : public CollectiveAlgorithm {
 public:
  [[nodiscard]] Operation operation() const override { return Operation::allreduce; }
  void run(Transport& transport, Block data) const override;
  [[nodiscard]] bool computes_values_in_memory() const override { return true; }
  void values_in_memory(const GroupBlocks& group) const override;
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

class BinomialTreeReduce final : public CollectiveAlgorithm {
 public:
  [[nodiscard]] Operation operation() const override { return Operation::reduce; }
  void run(Transport& transport, Block data) const override;
  [[nodiscard]] bool computes_values_in_memory() const override { return true; }
  void values_in_memory(const GroupBlocks& group) const override;
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

class BinomialTreeBroadcast final : public CollectiveAlgorithm {
 public:
  [[nodiscard]] Operation operation() const override { return Operation::broadcast; }
  void run(Transport& transport, Block data) const override;
  [[nodiscard]] bool computes_values_in_memory() const override { return true; }
  void values_in_memory(const GroupBlocks& group) const override;
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

/// ceil(log2 p): rounds of a binomial tree over p ranks.
int binomial_rounds(int ranks);

}  // namespace dtsim::comm
