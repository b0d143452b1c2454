#pragma once
// Binomial-tree allreduce: a binomial reduce to rank 0, then a binomial broadcast from it.
//
// Reduce: in round k (mask 2^k), a rank whose lowest set bit is 2^k sends its partial sum to rank - 2^k
// and is done; a rank below it adds what rank + 2^k sends. After ceil(log2 p) rounds rank 0 holds the
// sum. The broadcast runs the same tree backwards. Every message carries the whole buffer, so on a
// network where each round's pairs have their own links it takes 2 ceil(log2 p)(alpha + n/B).

#include "sim/comm/allreduce_algorithm.hpp"

namespace dtsim::comm {

class BinomialTreeAllreduce final : public AllreduceAlgorithm {
 public:
  void run(Transport& transport, std::span<float> data) const override;
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

/// ceil(log2 p): rounds of a binomial tree over p ranks.
int binomial_rounds(int ranks);

}  // namespace dtsim::comm
