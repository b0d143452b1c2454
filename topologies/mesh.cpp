#include "topologies/mesh.hpp"

#include <fmt/format.h>

namespace dtsim::topologies {

topology::TopologyGraph build_mesh(int workers, const LinkSpec& link) {
  topology::TopologyGraph graph;
  for (int rank = 0; rank < workers; ++rank) graph.add_worker(fmt::format("worker-{}", rank));
  const auto nodes = graph.workers();
  for (std::size_t a = 0; a < nodes.size(); ++a) {
    for (std::size_t b = a + 1; b < nodes.size(); ++b) graph.add_link(nodes[a], nodes[b], link.bandwidth, link.latency, "mesh");
  }
  return graph;
}

void register_mesh(TopologyRegistry& registry) {
  registry.add("mesh", "every worker linked to every other",
               {.parameters = {},
                .make = [](const core::View& t, const TopologyContext& c) { return build_mesh(c.workers, topology_link(t, c)); },
                .check = {},
                .size = [](const core::View&, const TopologyContext& c) {
                  const std::int64_t n = c.workers;
                  return TopologySize{n, n * (n - 1) / 2};
                },
                .example = "{kind: mesh}"});
}

}  // namespace dtsim::topologies
