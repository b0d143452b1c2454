#include "sim/topology/fluid_flows.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace dtsim::topology {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Levels within this relative distance saturate together: what is left of a shared capacity after
// subtracting rates computed from it is not exact.
constexpr double kSameLevel = 1e-12;
constexpr std::size_t kUnused = std::numeric_limits<std::size_t>::max();

}  // namespace

std::vector<double> weighted_max_min(std::span<const double> capacities, std::span<const std::vector<std::size_t>> uses,
                                     std::span<const double> weights, std::span<const double> bounds) {
  const std::size_t flows = uses.size();
  std::vector<double> rate(flows, 0.0);
  std::vector<bool> fixed(flows, false);
  std::vector<double> left(capacities.begin(), capacities.end());
  std::vector<double> weight_sum(capacities.size(), 0.0);
  std::size_t unfixed = flows;
  const auto fix = [&](std::size_t i, double value) {
    rate[i] = value;
    fixed[i] = true;
    --unfixed;
    for (const std::size_t c : uses[i]) left[c] = std::max(0.0, left[c] - value);
  };
  for (std::size_t i = 0; i < flows; ++i) {
    if (uses[i].empty()) fix(i, bounds[i]);  // crosses no link: only its bound holds it
  }
  while (unfixed > 0) {
    std::fill(weight_sum.begin(), weight_sum.end(), 0.0);
    for (std::size_t i = 0; i < flows; ++i) {
      if (fixed[i]) continue;
      for (const std::size_t c : uses[i]) weight_sum[c] += weights[i];
    }
    // Every unfixed flow runs at level x its weight; the lowest level at which a link fills, or a flow
    // reaches its bound, fixes those flows.
    double level = kInfinity;
    for (std::size_t c = 0; c < capacities.size(); ++c) {
      if (weight_sum[c] > 0.0) level = std::min(level, left[c] / weight_sum[c]);
    }
    double bound_level = kInfinity;
    for (std::size_t i = 0; i < flows; ++i) {
      if (!fixed[i]) bound_level = std::min(bound_level, bounds[i] / weights[i]);
    }
    if (bound_level <= level) {
      for (std::size_t i = 0; i < flows; ++i) {
        if (!fixed[i] && bounds[i] / weights[i] <= bound_level * (1.0 + kSameLevel)) fix(i, bounds[i]);
      }
      continue;
    }
    std::vector<bool> full(capacities.size(), false);
    for (std::size_t c = 0; c < capacities.size(); ++c) {
      full[c] = weight_sum[c] > 0.0 && left[c] / weight_sum[c] <= level * (1.0 + kSameLevel);
    }
    for (std::size_t i = 0; i < flows; ++i) {
      if (fixed[i]) continue;
      if (std::any_of(uses[i].begin(), uses[i].end(), [&](std::size_t c) { return full[c]; })) {
        fix(i, level * weights[i]);
      }
    }
  }
  return rate;
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
  const auto finish = [&](std::size_t i, double at) {
    done[i] = at;
    --remaining;
    for (const std::size_t next : dependents[i]) {
      posted[next] = std::max(posted[next], at);
      if (--waiting[next] == 0) {
        moving_from[next] = posted[next] + route_latency[next];
        released_at_once = released_at_once || moving_from[next] <= at;
      }
    }
  };

  double now = kInfinity;
  for (std::size_t i = 0; i < n; ++i) now = std::min(now, moving_from[i]);
  if (n == 0) now = 0.0;
  if (now == kInfinity) throw std::invalid_argument("flows that wait for each other in a cycle");
  std::vector<std::size_t> moving;
  while (remaining > 0) {
    // Flows whose latency is paid by now and with no bytes left are done; their arrival may release others,
    // which are looked at again at once.
    do {
      released_at_once = false;
      for (std::size_t i = 0; i < n; ++i) {
        if (done[i] < 0.0 && moving_from[i] <= now && left[i] <= 0.0) finish(i, now);
      }
    } while (released_at_once);
    if (remaining == 0) break;
    moving.clear();
    double next_start = kInfinity;
    for (std::size_t i = 0; i < n; ++i) {
      if (done[i] >= 0.0) continue;
      if (moving_from[i] > now) {
        next_start = std::min(next_start, moving_from[i]);
      } else {
        moving.push_back(i);
      }
    }
    if (moving.empty() && next_start == kInfinity) throw std::invalid_argument("flows that wait for each other in a cycle");
    std::vector<std::vector<std::size_t>> moving_uses;
    std::vector<double> moving_weight;
    std::vector<double> moving_bound;
    for (const std::size_t i : moving) {
      moving_uses.push_back(uses[i]);
      moving_weight.push_back(weight[i]);
      moving_bound.push_back(bound[i]);
    }
    const std::vector<double> rate = weighted_max_min(capacity, moving_uses, moving_weight, moving_bound);
    double next = next_start;
    for (std::size_t k = 0; k < moving.size(); ++k) {
      if (rate[k] > 0.0) next = std::min(next, now + left[moving[k]] / rate[k]);
    }
    if (next == kInfinity) throw std::logic_error("flows that can never finish");
    for (std::size_t k = 0; k < moving.size(); ++k) {
      const std::size_t i = moving[k];
      const bool ends = rate[k] > 0.0 && now + left[i] / rate[k] <= next * (1.0 + kSameLevel);
      left[i] = ends ? 0.0 : left[i] - rate[k] * (next - now);
      if (ends) finish(i, next);
    }
    now = next;
  }
  return done;
}

}  // namespace dtsim::topology
