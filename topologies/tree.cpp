#include "topologies/tree.hpp"

#include <fmt/format.h>

namespace dtsim::topologies {

topology::TopologyGraph build_tree(int workers, int arity, const LinkSpec& link) {
  topology::TopologyGraph graph;
  for (int rank = 0; rank < workers; ++rank) graph.add_worker(fmt::format("worker-{}", rank));
  std::vector<topology::NodeId> level(graph.workers().begin(), graph.workers().end());
  for (int depth = 1; level.size() > 1; ++depth) {
    std::vector<topology::NodeId> parents;
    for (std::size_t first = 0; first < level.size(); first += static_cast<std::size_t>(arity)) {
      const topology::NodeId parent = graph.add_switch(fmt::format("switch-{}-{}", depth, parents.size()));
      const std::size_t last = std::min(level.size(), first + static_cast<std::size_t>(arity));
      for (std::size_t child = first; child < last; ++child) {
        graph.add_link(level[child], parent, link.bandwidth, link.latency, depth == 1 ? "leaf" : "uplink");
      }
      parents.push_back(parent);
    }
    level = std::move(parents);
  }
  return graph;
}

void register_tree(TopologyRegistry& registry) {
  registry.add("tree", "k-ary tree of switches with workers at the leaves",
               {.parameters = {arity_parameter()},
                .make = [](const core::View& t, const TopologyContext& c) {
                  return build_tree(c.workers, static_cast<int>(t.filled_integer("arity")), topology_link(t, c));
                },
                .check = {},
                .size = [](const core::View& t, const TopologyContext& c) {
                  // Every node but the root has one link up: a level of m nodes has ceil(m / arity) parents.
                  const std::int64_t arity = t.filled_integer("arity");
                  TopologySize size{c.workers, 0};
                  for (std::int64_t level = c.workers; level > 1; level = (level + arity - 1) / arity) {
                    size.nodes += (level + arity - 1) / arity;
                    size.links += level;
                  }
                  return size;
                },
                .example = "{kind: tree, arity: 4}"});
}

}  // namespace dtsim::topologies
