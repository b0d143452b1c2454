#include "topologies/fat_tree.hpp"

#include <fmt/format.h>

#include <cmath>

namespace dtsim::topologies {

topology::TopologyGraph build_fat_tree(int workers, int arity, double oversubscription, const LinkSpec& link) {
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
  const int spines = std::max(1, static_cast<int>(std::ceil(arity / oversubscription - 1e-9)));
  for (int spine = 0; spine < spines; ++spine) {
    const topology::NodeId node = graph.add_switch(fmt::format("spine-{}", spine));
    for (const topology::NodeId leaf : leaf_switches) graph.add_link(leaf, node, link.bandwidth, link.latency, "spine");
  }
  return graph;
}

void register_fat_tree(TopologyRegistry& registry) {
  registry.add("fat_tree", "two-level leaf-spine fat tree with optional oversubscription",
               {.parameters = {arity_parameter(), oversubscription_parameter()},
                .make = [](const core::View& t, const TopologyContext& c) {
                  return build_fat_tree(c.workers, static_cast<int>(t.filled_integer("arity")),
                                        t.filled_number("oversubscription"), topology_link(t, c));
                },
                .check = {},
                .example = "{kind: fat_tree, arity: 4, oversubscription: 2}"});
}

}  // namespace dtsim::topologies
