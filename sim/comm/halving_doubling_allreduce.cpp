#include "sim/comm/halving_doubling_allreduce.hpp"

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
