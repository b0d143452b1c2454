#pragma once
// Recursive halving-doubling allreduce (Rabenseifner), for any number of ranks.
//
// With p' the largest power of two <= p and r = p - p': each extra rank p' + i first sends its buffer
// to rank i, which adds it. The p' ranks then reduce-scatter by recursive halving (log2 p' steps; in
// the step at distance d a rank swaps half of its current range with rank XOR d and adds the half it
// keeps, ending with the full sum of chunk `rank`), allgather by recursive doubling, and rank i hands
// the result back to rank p' + i. Time, each exchange between neighbours on its own link:
//   2 log2(p') alpha + 2 (p'-1)/p' n/B, plus 2(alpha + n/B) when p is not a power of two.

#include "sim/comm/collective_algorithm.hpp"

namespace dtsim::comm {

class HalvingDoublingAllreduce final : public CollectiveAlgorithm {
 public:
  [[nodiscard]] Operation operation() const override { return Operation::allreduce; }
  void run(Transport& transport, Block data) const override;
  [[nodiscard]] bool computes_values_in_memory() const override { return true; }
  void values_in_memory(const GroupBlocks& group) const override;
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

}  // namespace dtsim::comm
