#include "topologies/fat_tree.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dtsim::topologies {

topology::TopologyGraph build_fat_tree(int workers, int arity, double oversubscription, const LinkSpec& link,
                                       std::span<const int> port_nics) {
  topology::TopologyGraph graph;
  for (int rank = 0; rank < workers; ++rank) graph.add_worker(fmt::format("worker-{}", rank));
  const int leaves = (workers + arity - 1) / arity;
  std::vector<topology::NodeId> leaf_switches;
  for (int leaf = 0; leaf < leaves; ++leaf) leaf_switches.push_back(graph.add_switch(fmt::format("leaf-{}", leaf)));
  const auto nodes = graph.workers();
  for (int rank = 0; rank < workers; ++rank) {
    graph.add_link(nodes[static_cast<std::size_t>(rank)], leaf_switches[static_cast<std::size_t>(rank / arity)],
                   link.bandwidth, link.latency, "leaf");
  }
  if (leaves == 1) return graph;
  const int spines = uplink_count(arity, oversubscription);
  std::vector<core::BytesPerSecond> uplink;
  for (int leaf = 0; leaf < leaves; ++leaf) {
    const int first = leaf * arity;
    const double ports = leaf_port_links(port_nics, first, std::min(arity, workers - first), arity);
    uplink.push_back(link.bandwidth * uplink_width(ports, oversubscription, spines));
  }
  for (int spine = 0; spine < spines; ++spine) {
    const topology::NodeId node = graph.add_switch(fmt::format("spine-{}", spine));
    for (int leaf = 0; leaf < leaves; ++leaf) {
      graph.add_link(leaf_switches[static_cast<std::size_t>(leaf)], node, uplink[static_cast<std::size_t>(leaf)],
                     link.latency, "spine");
    }
  }
  return graph;
}

void register_fat_tree(TopologyRegistry& registry) {
  registry.add("fat_tree", "two-level leaf-spine fat tree with optional oversubscription",
               {.parameters = {arity_parameter(), oversubscription_parameter()},
                .make = [](const core::View& t, const TopologyContext& c) {
                  return build_fat_tree(c.workers, static_cast<int>(t.filled_integer("arity")),
                                        t.filled_number("oversubscription"), topology_link(t, c), c.port_nics);
                },
                .check = {},
                .size = [](const core::View& t, const TopologyContext& c) {
                  const std::int64_t arity = t.filled_integer("arity");
                  const std::int64_t leaves = (c.workers + arity - 1) / arity;
                  const std::int64_t spines =
                      leaves > 1 ? uplink_count(static_cast<int>(arity), t.filled_number("oversubscription")) : 0;
                  return TopologySize{c.workers + leaves + spines, c.workers + leaves * spines};
                },
                .example = "{kind: fat_tree, arity: 4, oversubscription: 2}"});
}

}  // namespace dtsim::topologies
