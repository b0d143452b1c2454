#include "sim/topology/every_to_every_loads.hpp"

#include <algorithm>
#include <stdexcept>

namespace dtsim::topology {

EveryToEveryTimes every_to_every_times(const TopologyGraph& graph, const RoutingTable& routes,
                                       std::span<const NodeId> hosts, std::span<const double> arrivals,
                                       std::span<const std::vector<double>> step_bytes) {
  const std::size_t ranks = hosts.size();
  if (arrivals.size() != ranks) throw std::invalid_argument("every_to_every_times: an arrival per rank");
  for (const std::vector<double>& bytes : step_bytes) {
    if (bytes.size() != ranks) throw std::invalid_argument("every_to_every_times: a step's bytes per rank");
  }
  std::vector<int> rank_of(graph.node_count(), -1);
  for (std::size_t r = 0; r < ranks; ++r) rank_of[hosts[r]] = static_cast<int>(r);
  const std::size_t steps = step_bytes.size();
  const std::size_t directions = 2 * graph.link_count();
  const auto direction = [](const Hop& hop) { return 2 * hop.link + (hop.forward ? 0 : 1); };
  // Each step's bytes on each link direction: one walk over every pair's route for all steps.
  std::vector<std::vector<double>> load(steps, std::vector<double>(directions, 0.0));
  routes.for_each_route(hosts, [&](NodeId from, NodeId to, const Route& route) {
    static_cast<void>(to);
    const auto sender = static_cast<std::size_t>(rank_of[from]);
    for (std::size_t k = 0; k < steps; ++k) {
      const double bytes = step_bytes[k][sender];
      for (const Hop& hop : route) load[k][direction(hop)] += bytes;
    }
  });
  EveryToEveryTimes times;
  for (std::size_t d = 0; d < directions; ++d) {
    double total = 0.0;
    for (std::size_t k = 0; k < steps; ++k) total += load[k][d];
    if (total > 0.0) times.crossings.emplace_back(Hop{d / 2, d % 2 == 0}, total);
  }
  // A link direction's time to carry a step's load at its rate; a message takes its slowest one's.
  for (std::vector<double>& of_step : load) {
    for (std::size_t d = 0; d < directions; ++d) of_step[d] /= graph.link(d / 2).bandwidth.value();
  }
  std::vector<double> done(arrivals.begin(), arrivals.end());
  std::vector<double> next(ranks);
  for (std::size_t k = 0; k < steps; ++k) {
    next = done;
    const std::vector<double>& drain = load[k];
    routes.for_each_route(hosts, [&](NodeId from, NodeId to, const Route& route) {
      const auto s = static_cast<std::size_t>(rank_of[from]);
      const auto d = static_cast<std::size_t>(rank_of[to]);
      double latency = 0.0;
      double slowest = 0.0;
      for (const Hop& hop : route) {
        latency += graph.link(hop.link).latency.value();
        slowest = std::max(slowest, drain[direction(hop)]);
      }
      const double end = std::max(done[s], done[d]) + latency + slowest;
      next[s] = std::max(next[s], end);
      next[d] = std::max(next[d], end);
    });
    done.swap(next);
  }
  times.ends = std::move(done);
  return times;
}

}  // namespace dtsim::topology
