#include "topologies/ring.hpp"

#include <fmt/format.h>

namespace dtsim::topologies {

topology::TopologyGraph build_ring(int workers, const LinkSpec& link, bool bidirectional) {
  topology::TopologyGraph graph;
  for (int rank = 0; rank < workers; ++rank) graph.add_worker(fmt::format("worker-{}", rank));
  const auto nodes = graph.workers();
  const int links = workers > 2 || !bidirectional ? workers : workers - 1;
  for (int i = 0; i < links && workers > 1; ++i) {
    graph.add_link(nodes[static_cast<std::size_t>(i)], nodes[static_cast<std::size_t>((i + 1) % workers)],
                   link.bandwidth, link.latency, "ring", !bidirectional);
  }
  return graph;
}

void register_ring(TopologyRegistry& registry) {
  registry.add("ring", "workers in a ring, each linked to the next",
               {.parameters = {core::boolean("bidirectional", "ring links carry traffic both ways; false: one way only, i to i+1")
                                   .fallback("true")},
                .make = [](const core::View& t, const TopologyContext& c) {
                  return build_ring(c.workers, topology_link(t, c), t.filled_flag("bidirectional"));
                },
                .check = {},
                .size = [](const core::View& t, const TopologyContext& c) {
                  const std::int64_t n = c.workers;
                  const std::int64_t links = n > 2 || !t.filled_flag("bidirectional") ? n : n - 1;
                  return TopologySize{n, n > 1 ? links : 0};
                },
                .example = "{kind: ring, bidirectional: false}"});
}

}  // namespace dtsim::topologies
