#include "sim/comm/binomial_tree_allreduce.hpp"

#include <algorithm>

namespace dtsim::comm {

int binomial_rounds(int ranks) {
  int rounds = 0;
  while ((1 << rounds) < ranks) ++rounds;
  return rounds;
}

void BinomialTreeAllreduce::run(Transport& transport, std::span<float> data) const {
  const int p = transport.size();
  const int rank = transport.rank();
  const int top = 1 << binomial_rounds(p);
  int mask = 1;
  for (; mask < top; mask <<= 1) {
    if ((rank & mask) != 0) {
      transport.send(rank - mask, Buffer(data.begin(), data.end()));
      break;
    }
    if (rank + mask < p) {
      const Buffer arrived = transport.recv(rank + mask);
      for (std::size_t i = 0; i < data.size(); ++i) data[i] += arrived[i];
    }
  }
  // `mask` is now the rank's lowest set bit (top for rank 0): its parent is rank - mask, and its children
  // are rank + m for every smaller power of two m.
  if (rank != 0) {
    const Buffer result = transport.recv(rank - mask);
    std::copy(result.begin(), result.end(), data.begin());
  }
  for (int m = mask >> 1; m >= 1; m >>= 1) {
    if (rank + m < p) transport.send(rank + m, Buffer(data.begin(), data.end()));
  }
}

core::Seconds BinomialTreeAllreduce::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  return (cost.alpha + size / cost.bandwidth) * (2.0 * binomial_rounds(ranks));
}

}  // namespace dtsim::comm
