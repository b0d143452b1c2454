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
class ProgressiveFilling {
 public:
  /// `local_of` is scratch by capacity, all kUnused, left so.
  ProgressiveFilling(std::span<const double> all_capacities, std::vector<std::size_t>& local_of, std::size_t count,
                     const Uses& uses_of, const Weight& weight_of, const Bound& bound_of)
      : local_of_(local_of), uses_of_(uses_of), weight_of_(weight_of), bound_of_(bound_of), rate_(count, 0.0),
        fixed_(count, false) {
    number_capacities(all_capacities, count);
    index_crossings(count);
  }
  ProgressiveFilling(const ProgressiveFilling&) = delete;
  ProgressiveFilling& operator=(const ProgressiveFilling&) = delete;
  ~ProgressiveFilling() {
    for (const std::size_t g : global_) local_of_[g] = kUnused;
  }

  std::vector<double> rates() {
    while (unfixed_ > 0) {
      while (!bound_levels_.empty() && fixed_[bound_levels_.top().second]) bound_levels_.pop();
      const double bound_level = bound_levels_.empty() ? kInfinity : bound_levels_.top().first;
      // Every unfixed flow runs at level x its weight; the lowest level at which a link fills, or a flow
      // reaches its bound, fixes those flows.
      const double level = lowest();
      if (bound_level <= level) {
        fix_bounded(bound_level);
      } else {
        fix_full(level);
      }
    }
    return std::move(rate_);
  }

 private:
  using Level = std::pair<double, std::size_t>;
  using LowestFirst = std::priority_queue<Level, std::vector<Level>, std::greater<>>;

  /// The capacities these flows cross, numbered here: a set of flows may name many more than it crosses at
  /// once (the fluid model's moving flows cross a few of the whole set's links).
  void number_capacities(std::span<const double> all_capacities, std::size_t count) {
    if (local_of_.size() < all_capacities.size()) local_of_.resize(all_capacities.size(), kUnused);
    for (std::size_t k = 0; k < count; ++k) {
      for (const std::size_t c : uses_of_(k)) {
        if (local_of_[c] == kUnused) {
          local_of_[c] = global_.size();
          global_.push_back(c);
        }
      }
    }
    left_.resize(global_.size());
    for (std::size_t c = 0; c < global_.size(); ++c) left_[c] = all_capacities[global_[c]];
    weight_sum_.assign(global_.size(), 0.0);
    unfixed_on_.assign(global_.size(), 0);
  }

  /// The flows crossing each capacity, as one array by capacity (offsets into `crossing_`); the weights on
  /// each, and the levels at which capacities fill and flows reach their bounds.
  void index_crossings(std::size_t count) {
    const std::size_t capacities = global_.size();
    offset_.assign(capacities + 1, 0);
    for (std::size_t k = 0; k < count; ++k) {
      for (const std::size_t c : uses_of_(k)) ++offset_[local_of_[c] + 1];
    }
    for (std::size_t c = 0; c < capacities; ++c) offset_[c + 1] += offset_[c];
    crossing_.resize(offset_.back());
    std::vector<std::size_t> filled(offset_.begin(), offset_.end() - 1);
    for (std::size_t k = 0; k < count; ++k) {
      ++unfixed_;
      for (const std::size_t g : uses_of_(k)) {
        const std::size_t c = local_of_[g];
        crossing_[filled[c]++] = k;
        weight_sum_[c] += weight_of_(k);
        ++unfixed_on_[c];
      }
      if (uses_of_(k).empty()) {
        fix(k, bound_of_(k));  // crosses no link: only its bound holds it
      } else {
        bound_levels_.emplace(bound_of_(k) / weight_of_(k), k);
      }
    }
    for (std::size_t c = 0; c < capacities; ++c) {
      if (unfixed_on_[c] > 0) levels_.emplace(level_of(c), c);
    }
  }

  void fix(std::size_t k, double value) {
    rate_[k] = value;
    fixed_[k] = true;
    --unfixed_;
    for (const std::size_t g : uses_of_(k)) {
      const std::size_t c = local_of_[g];
      left_[c] = std::max(0.0, left_[c] - value);
      weight_sum_[c] -= weight_of_(k);
      --unfixed_on_[c];
    }
  }

  [[nodiscard]] double level_of(std::size_t c) const { return left_[c] / weight_sum_[c]; }

  /// The heap's lowest entry, made current: an entry whose capacity changed since is pushed again as it is.
  double lowest() {
    while (!levels_.empty()) {
      const auto [level, c] = levels_.top();
      if (unfixed_on_[c] == 0) {
        levels_.pop();
      } else if (level != level_of(c)) {
        levels_.pop();
        levels_.emplace(level_of(c), c);
      } else {
        return level;
      }
    }
    return kInfinity;
  }

  void fix_bounded(double bound_level) {
    while (!bound_levels_.empty() && bound_levels_.top().first <= bound_level * (1.0 + kSameLevel)) {
      const std::size_t k = bound_levels_.top().second;
      bound_levels_.pop();
      if (!fixed_[k]) fix(k, bound_of_(k));
    }
  }

  void fix_full(double level) {
    // Every capacity full at this level is known before any of its flows is fixed.
    full_.clear();
    while (lowest() <= level * (1.0 + kSameLevel)) {
      full_.push_back(levels_.top().second);
      levels_.pop();
    }
    for (const std::size_t c : full_) {
      for (std::size_t at = offset_[c]; at < offset_[c + 1]; ++at) {
        const std::size_t k = crossing_[at];
        if (!fixed_[k]) fix(k, level * weight_of_(k));
      }
    }
  }

  std::vector<std::size_t>& local_of_;
  const Uses& uses_of_;
  const Weight& weight_of_;
  const Bound& bound_of_;
  std::vector<double> rate_;
  std::vector<bool> fixed_;
  std::size_t unfixed_ = 0;
  std::vector<std::size_t> global_;
  std::vector<double> left_;
  std::vector<double> weight_sum_;
  std::vector<std::size_t> unfixed_on_;
  std::vector<std::size_t> offset_;
  std::vector<std::size_t> crossing_;
  LowestFirst bound_levels_;
  LowestFirst levels_;
  std::vector<std::size_t> full_;
};

template <typename Uses, typename Weight, typename Bound>
std::vector<double> max_min(std::span<const double> all_capacities, std::vector<std::size_t>& local_of, std::size_t count,
                            const Uses& uses_of, const Weight& weight_of, const Bound& bound_of) {
  return ProgressiveFilling<Uses, Weight, Bound>(all_capacities, local_of, count, uses_of, weight_of, bound_of).rates();
}

}  // namespace

std::vector<double> weighted_max_min(std::span<const double> capacities, std::span<const std::vector<std::size_t>> uses,
                                     std::span<const double> weights, std::span<const double> bounds) {
  std::vector<std::size_t> local_of;
  return max_min(
      capacities, local_of, uses.size(), [&](std::size_t k) -> const std::vector<std::size_t>& { return uses[k]; },
      [&](std::size_t k) { return weights[k]; }, [&](std::size_t k) { return bounds[k]; });
}

namespace {

/// What the sharing needs of each flow of a set, from its route: the link directions it crosses (each one
/// capacity, links being full duplex, numbered as first crossed so that the sharing scans the directions in
/// use, not the whole fabric's), its weight, its bound and its route's latency.
struct RoutedFlows {
  std::vector<std::vector<std::size_t>> uses;
  std::vector<double> weight;
  std::vector<double> bound;
  std::vector<double> latency;
  std::vector<double> capacity;
};

RoutedFlows routed(const TopologyGraph& graph, const RoutingTable& routes, std::span<const Flow> flows) {
  const std::size_t n = flows.size();
  RoutedFlows out{std::vector<std::vector<std::size_t>>(n), std::vector<double>(n, 1.0), std::vector<double>(n, kInfinity),
                  std::vector<double>(n, 0.0), {}};
  std::vector<std::size_t> index_of(2 * graph.link_count(), kUnused);
  for (std::size_t i = 0; i < n; ++i) {
    if (flows[i].from == flows[i].to) throw std::invalid_argument("a flow from a host to itself");
    double latency = 0.0;
    for (const Hop& hop : routes.route(flows[i].from, flows[i].to)) {
      std::size_t& index = index_of[2 * hop.link + (hop.forward ? 0 : 1)];
      if (index == kUnused) {
        index = out.capacity.size();
        out.capacity.push_back(graph.link(hop.link).bandwidth.value());
      }
      out.uses[i].push_back(index);
      latency += graph.link(hop.link).latency.value();
      out.bound[i] = std::min(out.bound[i], graph.link(hop.link).bandwidth.value());
    }
    // SimGrid's sharing penalty is the route's latency (1 for none); a flow's share is its inverse.
    out.weight[i] = latency > 0.0 ? 1.0 / latency : 1.0;
    out.latency[i] = latency;
    for (const std::size_t before : flows[i].after) {
      if (before >= n) throw std::invalid_argument("a flow waits for a flow outside the set");
    }
  }
  return out;
}

/// The fluid model's clock over a set of flows: flows start moving once their latency is paid (a flow waiting
/// for others is posted when the last of them arrives, or at its own start if later), the moving ones share
/// the capacities by weighted max-min until the next one starts or ends.
class FluidRun {
 public:
  FluidRun(std::span<const Flow> flows, RoutedFlows routed);
  std::vector<double> completion_times();

 private:
  void finish(std::size_t i, double at);
  void queue_released();
  /// Flows whose latency is paid by now join the moving ones; those with no bytes left are done, and their
  /// arrival may release others, which are looked at again at once.
  void join_started();
  /// Shares the capacities among the moving flows until the next flow starts or ends; moves the clock there.
  void share_until_next();

  RoutedFlows routed_;
  std::vector<double> moving_from_;
  std::vector<double> left_;
  std::vector<double> done_;
  std::vector<std::vector<std::size_t>> dependents_;
  std::vector<std::size_t> waiting_;
  std::vector<double> posted_;
  std::size_t remaining_;
  bool released_at_once_ = false;        ///< a flow was released with no latency left to pay
  std::vector<std::size_t> released_;    ///< flows released since they were last queued
  // Flows not moving yet, by the moment they start moving (those waiting for others join once released);
  // the flows moving, in the order of the set, so that each sharing adds them up as one scan of all would.
  using Start = std::pair<double, std::size_t>;
  std::priority_queue<Start, std::vector<Start>, std::greater<>> starts_;
  std::vector<std::size_t> moving_;
  std::vector<std::size_t> local_of_;  // max_min's scratch, by capacity
  double now_ = 0.0;
};

FluidRun::FluidRun(std::span<const Flow> flows, RoutedFlows routed)
    : routed_(std::move(routed)),
      moving_from_(flows.size(), 0.0),
      left_(flows.size(), 0.0),
      done_(flows.size(), -1.0),
      dependents_(flows.size()),
      waiting_(flows.size(), 0),
      posted_(flows.size(), 0.0),
      remaining_(flows.size()) {
  for (std::size_t i = 0; i < flows.size(); ++i) {
    moving_from_[i] = flows[i].after.empty() ? flows[i].start + routed_.latency[i] : kInfinity;
    left_[i] = flows[i].bytes;
    for (const std::size_t before : flows[i].after) dependents_[before].push_back(i);
    waiting_[i] = flows[i].after.size();
    posted_[i] = flows[i].start;
    if (moving_from_[i] < kInfinity) starts_.emplace(moving_from_[i], i);
  }
  now_ = starts_.empty() ? kInfinity : starts_.top().first;
  if (flows.empty()) now_ = 0.0;
  if (now_ == kInfinity) throw std::invalid_argument("flows that wait for each other in a cycle");
}

void FluidRun::finish(std::size_t i, double at) {
  done_[i] = at;
  --remaining_;
  for (const std::size_t next : dependents_[i]) {
    posted_[next] = std::max(posted_[next], at);
    if (--waiting_[next] == 0) {
      moving_from_[next] = posted_[next] + routed_.latency[next];
      released_at_once_ = released_at_once_ || moving_from_[next] <= at;
      released_.push_back(next);
    }
  }
}

void FluidRun::queue_released() {
  for (const std::size_t i : released_) starts_.emplace(moving_from_[i], i);
  released_.clear();
}

void FluidRun::join_started() {
  do {
    released_at_once_ = false;
    bool joined = false;
    while (!starts_.empty() && starts_.top().first <= now_) {
      moving_.push_back(starts_.top().second);
      starts_.pop();
      joined = true;
    }
    if (joined) std::sort(moving_.begin(), moving_.end());
    std::size_t kept = 0;
    for (const std::size_t i : moving_) {
      if (left_[i] <= 0.0) {
        finish(i, now_);
      } else {
        moving_[kept++] = i;
      }
    }
    moving_.resize(kept);
    queue_released();
  } while (released_at_once_);
}

void FluidRun::share_until_next() {
  const double next_start = starts_.empty() ? kInfinity : starts_.top().first;
  if (moving_.empty() && next_start == kInfinity) throw std::invalid_argument("flows that wait for each other in a cycle");
  const std::vector<double> rate = max_min(
      routed_.capacity, local_of_, moving_.size(),
      [&](std::size_t k) -> const std::vector<std::size_t>& { return routed_.uses[moving_[k]]; },
      [&](std::size_t k) { return routed_.weight[moving_[k]]; }, [&](std::size_t k) { return routed_.bound[moving_[k]]; });
  double next = next_start;
  for (std::size_t k = 0; k < moving_.size(); ++k) {
    if (rate[k] > 0.0) next = std::min(next, now_ + left_[moving_[k]] / rate[k]);
  }
  if (next == kInfinity) throw std::logic_error("flows that can never finish");
  std::size_t kept = 0;
  for (std::size_t k = 0; k < moving_.size(); ++k) {
    const std::size_t i = moving_[k];
    const bool ends = rate[k] > 0.0 && now_ + left_[i] / rate[k] <= next * (1.0 + kSameLevel);
    left_[i] = ends ? 0.0 : left_[i] - rate[k] * (next - now_);
    if (ends) {
      finish(i, next);
    } else {
      moving_[kept++] = i;
    }
  }
  moving_.resize(kept);
  queue_released();
  now_ = next;
}

std::vector<double> FluidRun::completion_times() {
  while (remaining_ > 0) {
    join_started();
    if (remaining_ == 0) break;
    share_until_next();
  }
  return done_;
}

}  // namespace

std::vector<double> fluid_completion_times(const TopologyGraph& graph, const RoutingTable& routes,
                                           std::span<const Flow> flows) {
  return FluidRun(flows, routed(graph, routes, flows)).completion_times();
}

}  // namespace dtsim::topology
