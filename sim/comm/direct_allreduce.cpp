#include "sim/comm/direct_allreduce.hpp"

#include <algorithm>

namespace dtsim::comm {

void DirectAllreduce::run(Transport& transport, std::span<float> data) const {
  const int p = transport.size();
  if (p == 1) return;
  const int rank = transport.rank();
  const auto chunk = [&](int index) {
    const ChunkBounds bounds = chunk_bounds(data.size(), p, index);
    return data.subspan(bounds.begin, bounds.end - bounds.begin);
  };
  std::vector<int> others;
  for (int r = 0; r < p; ++r) {
    if (r != rank) others.push_back(r);
  }
  std::vector<Buffer> outgoing;
  for (const int r : others) outgoing.emplace_back(chunk(r).begin(), chunk(r).end());
  const std::vector<Buffer> contributions = transport.exchange(others, std::move(outgoing), others);
  const std::span<float> mine = chunk(rank);
  Buffer sum(mine.size(), 0.0F);
  for (int r = 0, next = 0; r < p; ++r) {
    const float* values = r == rank ? mine.data() : contributions[static_cast<std::size_t>(next++)].data();
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += values[i];
  }
  std::copy(sum.begin(), sum.end(), mine.begin());
  const std::vector<Buffer> reduced = transport.exchange(others, std::vector<Buffer>(others.size(), sum), others);
  for (std::size_t i = 0; i < others.size(); ++i) {
    const std::span<float> target = chunk(others[i]);
    std::copy(reduced[i].begin(), reduced[i].end(), target.begin());
  }
}

core::Seconds DirectAllreduce::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  if (ranks <= 1) return core::Seconds(0.0);
  return (cost.alpha + size / (cost.bandwidth * ranks)) * 2.0;
}

}  // namespace dtsim::comm
