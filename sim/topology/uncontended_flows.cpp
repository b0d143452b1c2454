#include "sim/topology/uncontended_flows.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace dtsim::topology {

std::vector<double> uncontended_completion_times(const TopologyGraph& graph, const RoutingTable& routes,
                                                 std::span<const Flow> flows) {
  const std::size_t n = flows.size();
  std::vector<double> alone(n, 0.0);  ///< latency plus bytes at the bottleneck
  std::vector<std::vector<std::size_t>> dependents(n);
  std::vector<std::size_t> waiting(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (flows[i].from == flows[i].to) throw std::invalid_argument("a flow from a host to itself");
    double latency = 0.0;
    double bottleneck = std::numeric_limits<double>::infinity();
    for (const Hop& hop : routes.route(flows[i].from, flows[i].to)) {
      latency += graph.link(hop.link).latency.value();
      bottleneck = std::min(bottleneck, graph.link(hop.link).bandwidth.value());
    }
    alone[i] = latency + flows[i].bytes / bottleneck;
    for (const std::size_t before : flows[i].after) {
      if (before >= n) throw std::invalid_argument("a flow waits for a flow outside the set");
      dependents[before].push_back(i);
    }
    waiting[i] = flows[i].after.size();
  }
  // Each flow is posted when the last flow it waits for arrives: flows in the order they become ready.
  std::vector<double> posted(n, 0.0);
  std::vector<std::size_t> ready;
  for (std::size_t i = 0; i < n; ++i) {
    posted[i] = flows[i].start;
    if (waiting[i] == 0) ready.push_back(i);
  }
  std::vector<double> done(n, 0.0);
  std::size_t finished = 0;
  while (!ready.empty()) {
    const std::size_t i = ready.back();
    ready.pop_back();
    done[i] = posted[i] + alone[i];
    ++finished;
    for (const std::size_t next : dependents[i]) {
      posted[next] = std::max(posted[next], done[i]);
      if (--waiting[next] == 0) ready.push_back(next);
    }
  }
  if (finished != n) throw std::invalid_argument("flows wait for each other in a cycle");
  return done;
}

}  // namespace dtsim::topology
