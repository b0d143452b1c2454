#pragma once
// Bytes carried by every link, in each direction: each message adds its size to every link of its route.

#include "sim/topology/routing.hpp"
#include "sim/topology/topology_graph.hpp"

#include <vector>

namespace dtsim::topology {

class LinkTraffic {
 public:
  /// Keeps references to `graph` and `routes`, which must outlive it. Hosts are numbered as
  /// TopologyGraph::hosts() orders them: workers by rank, then servers.
  LinkTraffic(const TopologyGraph& graph, const RoutingTable& routes);

  /// A message of `bytes` from host `from` to host `to`.
  void add(int from, int to, double bytes);
  /// `bytes` over one link, in the hop's direction.
  void add_on(Hop hop, double bytes) { (hop.forward ? forward_ : backward_).at(hop.link) += bytes; }

  /// The latency of the route from host `from` to host `to` (RoutingTable::latency).
  [[nodiscard]] double latency(int from, int to) const {
    return routes_->latency(hosts_.at(static_cast<std::size_t>(from)), hosts_.at(static_cast<std::size_t>(to)));
  }

  /// Bytes that crossed link `link` from its first end to its second (forward) or back.
  [[nodiscard]] double forward(std::size_t link) const { return forward_.at(link); }
  [[nodiscard]] double backward(std::size_t link) const { return backward_.at(link); }

 private:
  const RoutingTable* routes_;
  std::vector<NodeId> hosts_;
  std::vector<double> forward_;
  std::vector<double> backward_;
};

}  // namespace dtsim::topology
