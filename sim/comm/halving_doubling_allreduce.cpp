#include "sim/comm/halving_doubling_allreduce.hpp"

#include <algorithm>
#include <bit>
#include <vector>

namespace dtsim::comm {
namespace {

/// The same messages as this rank's steps, for a transport that times a collective at once.
std::vector<Step> steps_of(const Transport& transport, const Block& data) {
  const int p = transport.size();
  const int rank = transport.rank();
  const int core = static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));
  const int extra = p - core;
  const std::size_t n = data.size();
  std::vector<Step> steps;
  const std::vector<int> none;
  const auto one = [](int r) { return std::vector<int>{r}; };
  // Elements of chunks [lo, hi) of the core's chunks.
  const auto elements = [&](int lo, int hi) {
    return chunk_bounds(n, core, hi - 1).end - chunk_bounds(n, core, lo).begin;
  };
  if (extra > 0) {
    if (rank >= core) {
      steps.push_back(Step{one(rank - core), none, n});
    } else if (rank < extra) {
      steps.push_back(Step{none, one(rank + core), n});
    }
  }
  int lo = 0;
  int hi = core;
  // The ranks past the largest power of two only hand their block over and get the result back.
  for (int distance = core / 2; distance >= 1 && rank < core; distance /= 2) {
    const int mid = (lo + hi) / 2;
    const bool upper = (rank & distance) != 0;
    steps.push_back(Step{one(rank ^ distance), one(rank ^ distance), upper ? elements(lo, mid) : elements(mid, hi)});
    if (upper) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  for (int distance = 1; distance < core && rank < core; distance *= 2) {
    const int width = hi - lo;
    const bool upper = (rank & distance) != 0;
    steps.push_back(Step{one(rank ^ distance), one(rank ^ distance), elements(lo, hi)});
    if (upper) {
      lo -= width;
    } else {
      hi += width;
    }
  }
  if (extra > 0) {
    if (rank >= core) {
      steps.push_back(Step{none, one(rank - core), n});
    } else if (rank < extra) {
      steps.push_back(Step{one(rank + core), none, n});
    }
  }
  return steps;
}

}  // namespace

void HalvingDoublingAllreduce::run(Transport& transport, Block data) const {
  const int p = transport.size();
  const int rank = transport.rank();
  if (p > 1 && !data.has_values() && transport.times_phases_at_once()) {
    transport.run_steps(steps_of(transport, data));
    return;
  }
  const int core = static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));
  const int extra = p - core;
  if (rank >= core) {
    transport.send(rank - core, data.copy());
    data.assign(transport.recv(rank - core));
    return;
  }
  if (rank < extra) {
    data.add(transport.recv(rank + core));
  }
  // A range of chunk indices [lo, hi) of the p' chunks, as elements.
  const auto elements = [&](int lo, int hi) {
    const std::size_t begin = chunk_bounds(data.size(), core, lo).begin;
    const std::size_t end = chunk_bounds(data.size(), core, hi - 1).end;
    return data.part(begin, end);
  };
  int lo = 0;
  int hi = core;
  for (int distance = core / 2; distance >= 1; distance /= 2) {
    const int mid = (lo + hi) / 2;
    const bool upper = (rank & distance) != 0;
    const Block give = upper ? elements(lo, mid) : elements(mid, hi);
    const Block keep = upper ? elements(mid, hi) : elements(lo, mid);
    keep.add(transport.send_recv(rank ^ distance, give.copy(), rank ^ distance));
    if (upper) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  for (int distance = 1; distance < core; distance *= 2) {
    const int width = hi - lo;
    const bool upper = (rank & distance) != 0;
    const Block mine = elements(lo, hi);
    const Block theirs = upper ? elements(lo - width, lo) : elements(hi, hi + width);
    theirs.assign(transport.send_recv(rank ^ distance, mine.copy(), rank ^ distance));
    if (upper) {
      lo -= width;
    } else {
      hi += width;
    }
  }
  if (rank < extra) transport.send(rank + core, data.copy());
}

void HalvingDoublingAllreduce::values_in_memory(const GroupBlocks& group) const {
  const std::span<const std::span<float>> blocks = group.blocks;
  const int p = static_cast<int>(blocks.size());
  const int core = static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));
  const int extra = p - core;
  const std::size_t n = blocks.front().size();
  const auto block = [&](int r) { return blocks[static_cast<std::size_t>(r)]; };
  // Chunks [lo, hi) of the core's chunks, as element bounds.
  const auto bounds = [&](int lo, int hi) { return ChunkBounds{chunk_bounds(n, core, lo).begin, chunk_bounds(n, core, hi - 1).end}; };
  const auto add_into = [](std::span<float> own, std::span<const float> arrived, ChunkBounds part) {
    for (std::size_t i = part.begin; i < part.end; ++i) own[i] += arrived[i];
  };
  const auto copy_into = [](std::span<float> to, std::span<const float> from, ChunkBounds part) {
    std::copy(from.begin() + static_cast<std::ptrdiff_t>(part.begin), from.begin() + static_cast<std::ptrdiff_t>(part.end),
              to.begin() + static_cast<std::ptrdiff_t>(part.begin));
  };
  for (int r = 0; r < extra; ++r) add_into(block(r), block(r + core), ChunkBounds{0, n});
  // Each pair of partners shares [lo, hi) when it meets, each keeping a half: the halves do not overlap, so each
  // partner's update reads the other's values from before the step, as the messages carry them.
  std::vector<int> lo(static_cast<std::size_t>(core), 0);
  std::vector<int> hi(static_cast<std::size_t>(core), core);
  for (int distance = core / 2; distance >= 1; distance /= 2) {
    for (int lower = 0; lower < core; ++lower) {
      if ((lower & distance) != 0) continue;
      const int upper = lower ^ distance;
      const auto l = static_cast<std::size_t>(lower);
      const auto u = static_cast<std::size_t>(upper);
      const int mid = (lo[l] + hi[l]) / 2;
      add_into(block(lower), block(upper), bounds(lo[l], mid));
      add_into(block(upper), block(lower), bounds(mid, hi[l]));
      hi[l] = mid;
      lo[u] = mid;
    }
  }
  for (int distance = 1; distance < core; distance *= 2) {
    for (int lower = 0; lower < core; ++lower) {
      if ((lower & distance) != 0) continue;
      const auto l = static_cast<std::size_t>(lower);
      const auto u = static_cast<std::size_t>(lower ^ distance);
      copy_into(block(lower ^ distance), block(lower), bounds(lo[l], hi[l]));
      copy_into(block(lower), block(lower ^ distance), bounds(lo[u], hi[u]));
      lo[u] = lo[l];
      hi[l] = hi[u];
    }
  }
  for (int r = 0; r < extra; ++r) copy_into(block(r + core), block(r), ChunkBounds{0, n});
}

core::Seconds HalvingDoublingAllreduce::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  if (ranks <= 1) return core::Seconds(0.0);
  const int core = static_cast<int>(std::bit_floor(static_cast<unsigned>(ranks)));
  int steps = 0;
  while ((1 << steps) < core) ++steps;
  core::Seconds time = cost.alpha * (2.0 * steps) + size / cost.bandwidth * (2.0 * (core - 1) / core);
  if (ranks != core) time += (cost.alpha + size / cost.bandwidth) * 2.0;
  return time;
}

}  // namespace dtsim::comm
