#include "topologies/ring.hpp"

#include <fmt/format.h>

namespace dtsim::topologies {

topology::TopologyGraph build_ring(int workers, const scenario::LinkSpec& link, bool bidirectional) {
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

}  // namespace dtsim::topologies
