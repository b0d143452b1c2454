#include "sim/topology/every_to_every_loads.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace dtsim::topology {
namespace {

std::size_t direction(const Hop& hop) { return 2 * hop.link + (hop.forward ? 0 : 1); }

}  // namespace

EveryToEveryLoads::EveryToEveryLoads(const TopologyGraph& graph, const RoutingTable& routes,
                                     std::span<const NodeId> hosts)
    : ranks_(hosts.size()) {
  // for_each_route gives the pairs by the hosts' node ids, the higher one e after every lower one s: (s, e)
  // then (e, s). Positions in that order index the pairs without storing them.
  rank_at_.resize(ranks_);
  std::iota(rank_at_.begin(), rank_at_.end(), std::size_t{0});
  std::sort(rank_at_.begin(), rank_at_.end(), [&](std::size_t a, std::size_t b) { return hosts[a] < hosts[b]; });
  std::vector<double> count(2 * graph.link_count(), 0.0);
  routes.for_each_route(hosts, [&](NodeId, NodeId, const Route& route) {
    for (const Hop& hop : route) count[direction(hop)] += 1.0;
  });
  std::vector<double> seconds_per_byte(count.size());
  for (std::size_t d = 0; d < count.size(); ++d) {
    if (count[d] > 0.0) crossings_.emplace_back(Hop{d / 2, d % 2 == 0}, count[d]);
    seconds_per_byte[d] = count[d] / graph.link(d / 2).bandwidth.value();
  }
  const std::size_t pairs = ranks_ > 0 ? ranks_ * (ranks_ - 1) : 0;
  latency_.reserve(pairs / 2);
  drain_.reserve(pairs);
  bool back = false;
  routes.for_each_route(hosts, [&](NodeId, NodeId, const Route& route) {
    double latency = 0.0;
    double slowest = 0.0;
    for (const Hop& hop : route) {
      latency += graph.link(hop.link).latency.value();
      slowest = std::max(slowest, seconds_per_byte[direction(hop)]);
    }
    if (!back) latency_.push_back(latency);
    drain_.push_back(slowest);
    back = !back;
  });
}

std::vector<double> EveryToEveryLoads::ends(std::span<const double> arrivals, std::span<const double> step_bytes) const {
  if (arrivals.size() != ranks_) throw std::invalid_argument("EveryToEveryLoads::ends: an arrival per rank");
  std::vector<double> done(arrivals.begin(), arrivals.end());
  std::vector<double> next(ranks_);
  for (const double bytes : step_bytes) {
    next = done;
    std::size_t pair = 0;
    std::size_t message = 0;
    for (std::size_t e = 1; e < ranks_; ++e) {
      const std::size_t high = rank_at_[e];
      for (std::size_t s = 0; s < e; ++s, ++pair) {
        const std::size_t low = rank_at_[s];
        const double posted = std::max(done[low], done[high]) + latency_[pair];
        // Both ways between the two ranks: each end takes part in both messages.
        const double end = posted + bytes * std::max(drain_[message], drain_[message + 1]);
        message += 2;
        next[low] = std::max(next[low], end);
        next[high] = std::max(next[high], end);
      }
    }
    done.swap(next);
  }
  return done;
}

}  // namespace dtsim::topology
