#include "topologies/rail_fabric.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dtsim::topologies {

topology::TopologyGraph build_rail_fabric(const std::vector<std::size_t>& devices_per_node, int arity,
                                          double oversubscription, const LinkSpec& link) {
  topology::TopologyGraph fabric;
  const std::size_t rails = *std::max_element(devices_per_node.begin(), devices_per_node.end());
  // The fabric's hosts are the NICs, in endpoint order (node by node, device by device).
  std::vector<std::vector<topology::NodeId>> ports(devices_per_node.size());
  int port = 0;
  for (std::size_t m = 0; m < devices_per_node.size(); ++m) {
    for (std::size_t d = 0; d < devices_per_node[m]; ++d)
      ports[m].push_back(fabric.add_worker(fmt::format("nic-{}", port++)));
  }
  const std::size_t nodes = devices_per_node.size();
  const std::size_t groups = (nodes + static_cast<std::size_t>(arity) - 1) / static_cast<std::size_t>(arity);
  std::vector<topology::NodeId> leaves;
  for (std::size_t rail = 0; rail < rails; ++rail) {
    for (std::size_t group = 0; group < groups; ++group) {
      const topology::NodeId leaf = fabric.add_switch(fmt::format("rail-{}-leaf-{}", rail, group));
      leaves.push_back(leaf);
      for (std::size_t m = group * static_cast<std::size_t>(arity);
           m < std::min(nodes, (group + 1) * static_cast<std::size_t>(arity)); ++m) {
        if (rail < ports[m].size()) fabric.add_link(ports[m][rail], leaf, link.bandwidth, link.latency, "rail");
      }
    }
  }
  if (leaves.size() > 1) {
    const int spines = uplink_count(arity, oversubscription);
    const core::BytesPerSecond uplink = link.bandwidth * uplink_width(arity, oversubscription, spines);
    for (int s = 0; s < spines; ++s) {
      const topology::NodeId spine = fabric.add_switch(fmt::format("rail-spine-{}", s));
      for (const topology::NodeId leaf : leaves) fabric.add_link(leaf, spine, uplink, link.latency, "spine");
    }
  }
  return fabric;
}

}  // namespace dtsim::topologies
