#pragma once
// Direct allreduce: a reduce-scatter in which every rank sends chunk j straight to rank j, then an
// allgather in which every rank sends its reduced chunk straight to every other. Two rounds of p-1
// concurrent messages of n/p bytes; on a full mesh, where each pair has its own link, 2(alpha + n/(pB)).
// Rank j adds the contributions to chunk j in rank order.

#include "sim/comm/allreduce_algorithm.hpp"

namespace dtsim::comm {

class DirectAllreduce final : public AllreduceAlgorithm {
 public:
  void run(Transport& transport, std::span<float> data) const override;
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

}  // namespace dtsim::comm
