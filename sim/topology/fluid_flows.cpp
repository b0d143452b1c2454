#include "sim/topology/fluid_flows.hpp"

#include <algorithm>
#include <limits>
#include <queue>
#include <utility>
#include <stdexcept>

namespace dtsim::topology {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Levels within this relative distance saturate together: what is left of a shared capacity after
// subtracting rates computed from it is not exact.
constexpr double kSameLevel = 1e-12;
constexpr std::size_t kUnused = std::numeric_limits<std::size_t>::max();

}  // namespace

namespace {

/// Weighted max-min over flows 0..count-1, flow k crossing `uses_of(k)`, of weight `weight_of(k)` and bound
/// `bound_of(k)`, by progressive filling: the level at which each capacity fills (what is left of it over
/// the weights of the flows not fixed yet that cross it) is kept in a heap and updated as flows are fixed,
/// so that each flow is fixed once and each fix touches only the capacities it crosses.
template <typename Uses, typename Weight, typename Bound>
std::vector<double> max_min(std::span<const double> all_capacities, std::vector<std::size_t>& local_of, std::size_t count,
                            const Uses& uses_of, const Weight& weight_of, const Bound& bound_of) {
  // The capacities these flows cross, numbered here: a set of flows may name many more than it crosses at
  // once (the fluid model's moving flows cross a few of the whole set's links).
  if (local_of.size() < all_capacities.size()) local_of.resize(all_capacities.size(), kUnused);
  std::vector<std::size_t> global;
  for (std::size_t k = 0; k < count; ++k) {
    for (const std::size_t c : uses_of(k)) {
      if (local_of[c] == kUnused) {
        local_of[c] = global.size();
        global.push_back(c);
      }
    }
  }
  const std::size_t capacities = global.size();
  std::vector<double> rate(count, 0.0);
  std::vector<bool> fixed(count, false);
  std::vector<double> left(capacities);
  for (std::size_t c = 0; c < capacities; ++c) left[c] = all_capacities[global[c]];
  std::vector<double> weight_sum(capacities, 0.0);
  std::vector<std::size_t> unfixed_on(capacities, 0);
  // The flows crossing each capacity, as one array by capacity (offsets into `crossing`).
  std::vector<std::size_t> offset(capacities + 1, 0);
  for (std::size_t k = 0; k < count; ++k) {
    for (const std::size_t c : uses_of(k)) ++offset[local_of[c] + 1];
  }
  for (std::size_t c = 0; c < capacities; ++c) offset[c + 1] += offset[c];
  std::vector<std::size_t> crossing(offset.back());
  std::vector<std::size_t> filled(offset.begin(), offset.end() - 1);
  std::size_t unfixed = 0;
  using Level = std::pair<double, std::size_t>;
  std::priority_queue<Level, std::vector<Level>, std::greater<>> bound_levels;
  const auto fix = [&](std::size_t k, double value) {
    rate[k] = value;
    fixed[k] = true;
    --unfixed;
    for (const std::size_t g : uses_of(k)) {
      const std::size_t c = local_of[g];
      left[c] = std::max(0.0, left[c] - value);
      weight_sum[c] -= weight_of(k);
      --unfixed_on[c];
    }
  };
  for (std::size_t k = 0; k < count; ++k) {
    ++unfixed;
    for (const std::size_t g : uses_of(k)) {
      const std::size_t c = local_of[g];
      crossing[filled[c]++] = k;
      weight_sum[c] += weight_of(k);
      ++unfixed_on[c];
    }
    if (uses_of(k).empty()) {
      fix(k, bound_of(k));  // crosses no link: only its bound holds it
    } else {
      bound_levels.emplace(bound_of(k) / weight_of(k), k);
    }
  }
  const auto level_of = [&](std::size_t c) { return left[c] / weight_sum[c]; };
  std::priority_queue<Level, std::vector<Level>, std::greater<>> levels;
  for (std::size_t c = 0; c < capacities; ++c) {
    if (unfixed_on[c] > 0) levels.emplace(level_of(c), c);
  }
  // The heap's lowest entry, made current: an entry whose capacity changed since is pushed again as it is.
  const auto lowest = [&]() -> double {
    while (!levels.empty()) {
      const auto [level, c] = levels.top();
      if (unfixed_on[c] == 0) {
        levels.pop();
      } else if (level != level_of(c)) {
        levels.pop();
        levels.emplace(level_of(c), c);
      } else {
        return level;
      }
    }
    return kInfinity;
  };
  std::vector<std::size_t> full;
  while (unfixed > 0) {
    while (!bound_levels.empty() && fixed[bound_levels.top().second]) bound_levels.pop();
    const double bound_level = bound_levels.empty() ? kInfinity : bound_levels.top().first;
    // Every unfixed flow runs at level x its weight; the lowest level at which a link fills, or a flow
    // reaches its bound, fixes those flows.
    const double level = lowest();
    if (bound_level <= level) {
      while (!bound_levels.empty() && bound_levels.top().first <= bound_level * (1.0 + kSameLevel)) {
        const std::size_t k = bound_levels.top().second;
        bound_levels.pop();
        if (!fixed[k]) fix(k, bound_of(k));
      }
      continue;
    }
    // Every capacity full at this level is known before any of its flows is fixed.
    full.clear();
    while (lowest() <= level * (1.0 + kSameLevel)) {
      full.push_back(levels.top().second);
      levels.pop();
    }
    for (const std::size_t c : full) {
      for (std::size_t at = offset[c]; at < offset[c + 1]; ++at) {
        const std::size_t k = crossing[at];
        if (!fixed[k]) fix(k, level * weight_of(k));
      }
    }
  }
  for (const std::size_t g : global) local_of[g] = kUnused;
  return rate;
}

}  // namespace

std::vector<double> weighted_max_min(std::span<const double> capacities, std::span<const std::vector<std::size_t>> uses,
                                     std::span<const double> weights, std::span<const double> bounds) {
  std::vector<std::size_t> local_of;
  return max_min(
      capacities, local_of, uses.size(), [&](std::size_t k) -> const std::vector<std::size_t>& { return uses[k]; },
      [&](std::size_t k) { return weights[k]; }, [&](std::size_t k) { return bounds[k]; });
}

std::vector<double> fluid_completion_times(const TopologyGraph& graph, const RoutingTable& routes,
                                           std::span<const Flow> flows) {
  const std::size_t n = flows.size();
  std::vector<std::vector<std::size_t>> uses(n);
  std::vector<double> weight(n, 1.0);
  std::vector<double> bound(n, kInfinity);
  std::vector<double> moving_from(n, 0.0);
  std::vector<double> left(n, 0.0);
  std::vector<double> done(n, -1.0);
  std::vector<double> route_latency(n, 0.0);
  // Each link direction a flow crosses is one capacity (links are full duplex), numbered as first crossed:
  // the sharing then scans the directions in use, not the whole fabric's.
  std::vector<double> capacity;
  std::vector<std::size_t> index_of(2 * graph.link_count(), kUnused);
  for (std::size_t i = 0; i < n; ++i) {
    if (flows[i].from == flows[i].to) throw std::invalid_argument("a flow from a host to itself");
    double latency = 0.0;
    for (const Hop& hop : routes.route(flows[i].from, flows[i].to)) {
      std::size_t& index = index_of[2 * hop.link + (hop.forward ? 0 : 1)];
      if (index == kUnused) {
        index = capacity.size();
        capacity.push_back(graph.link(hop.link).bandwidth.value());
      }
      uses[i].push_back(index);
      latency += graph.link(hop.link).latency.value();
      bound[i] = std::min(bound[i], graph.link(hop.link).bandwidth.value());
    }
    // SimGrid's sharing penalty is the route's latency (1 for none); a flow's share is its inverse.
    weight[i] = latency > 0.0 ? 1.0 / latency : 1.0;
    route_latency[i] = latency;
    moving_from[i] = flows[i].after.empty() ? flows[i].start + latency : kInfinity;
    left[i] = flows[i].bytes;
    for (const std::size_t before : flows[i].after) {
      if (before >= n) throw std::invalid_argument("a flow waits for a flow outside the set");
    }
  }
  // A flow waiting for others is posted when the last of them arrives (or at its own start, if later):
  // each arrival counts down its dependents' waits.
  std::vector<std::vector<std::size_t>> dependents(n);
  std::vector<std::size_t> waiting(n, 0);
  std::vector<double> posted(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    for (const std::size_t before : flows[i].after) dependents[before].push_back(i);
    waiting[i] = flows[i].after.size();
    posted[i] = flows[i].start;
  }
  std::size_t remaining = n;
  bool released_at_once = false;  ///< a flow was released with no latency left to pay
  std::vector<std::size_t> released;  ///< flows released since they were last queued
  const auto finish = [&](std::size_t i, double at) {
    done[i] = at;
    --remaining;
    for (const std::size_t next : dependents[i]) {
      posted[next] = std::max(posted[next], at);
      if (--waiting[next] == 0) {
        moving_from[next] = posted[next] + route_latency[next];
        released_at_once = released_at_once || moving_from[next] <= at;
        released.push_back(next);
      }
    }
  };

  // Flows not moving yet, by the moment they start moving (those waiting for others join once released);
  // the flows moving, in the order of the set, so that each sharing adds them up as one scan of all would.
  using Start = std::pair<double, std::size_t>;
  std::priority_queue<Start, std::vector<Start>, std::greater<>> starts;
  for (std::size_t i = 0; i < n; ++i) {
    if (moving_from[i] < kInfinity) starts.emplace(moving_from[i], i);
  }
  double now = starts.empty() ? kInfinity : starts.top().first;
  if (n == 0) now = 0.0;
  if (now == kInfinity) throw std::invalid_argument("flows that wait for each other in a cycle");
  const auto queue_released = [&] {
    for (const std::size_t i : released) starts.emplace(moving_from[i], i);
    released.clear();
  };
  std::vector<std::size_t> moving;
  std::vector<std::size_t> local_of;  // max_min's scratch, by capacity
  while (remaining > 0) {
    // Flows whose latency is paid by now join the moving ones; those with no bytes left are done, and their
    // arrival may release others, which are looked at again at once.
    do {
      released_at_once = false;
      bool joined = false;
      while (!starts.empty() && starts.top().first <= now) {
        moving.push_back(starts.top().second);
        starts.pop();
        joined = true;
      }
      if (joined) std::sort(moving.begin(), moving.end());
      std::size_t kept = 0;
      for (const std::size_t i : moving) {
        if (left[i] <= 0.0) {
          finish(i, now);
        } else {
          moving[kept++] = i;
        }
      }
      moving.resize(kept);
      queue_released();
    } while (released_at_once);
    if (remaining == 0) break;
    const double next_start = starts.empty() ? kInfinity : starts.top().first;
    if (moving.empty() && next_start == kInfinity) throw std::invalid_argument("flows that wait for each other in a cycle");
    const std::vector<double> rate = max_min(
        capacity, local_of, moving.size(), [&](std::size_t k) -> const std::vector<std::size_t>& { return uses[moving[k]]; },
        [&](std::size_t k) { return weight[moving[k]]; }, [&](std::size_t k) { return bound[moving[k]]; });
    double next = next_start;
    for (std::size_t k = 0; k < moving.size(); ++k) {
      if (rate[k] > 0.0) next = std::min(next, now + left[moving[k]] / rate[k]);
    }
    if (next == kInfinity) throw std::logic_error("flows that can never finish");
    std::size_t kept = 0;
    for (std::size_t k = 0; k < moving.size(); ++k) {
      const std::size_t i = moving[k];
      const bool ends = rate[k] > 0.0 && now + left[i] / rate[k] <= next * (1.0 + kSameLevel);
      left[i] = ends ? 0.0 : left[i] - rate[k] * (next - now);
      if (ends) {
        finish(i, next);
      } else {
        moving[kept++] = i;
      }
    }
    moving.resize(kept);
    queue_released();
    now = next;
  }
  return done;
}

}  // namespace dtsim::topology
