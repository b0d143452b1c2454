#include "topologies/torus.hpp"

#include <fmt/format.h>

#include <functional>
#include <numeric>

namespace dtsim::topologies {

topology::TopologyGraph build_torus(const std::vector<int>& dimensions, const scenario::LinkSpec& link) {
  const int workers = std::accumulate(dimensions.begin(), dimensions.end(), 1, std::multiplies<>());
  topology::TopologyGraph graph;
  for (int rank = 0; rank < workers; ++rank) graph.add_worker(fmt::format("worker-{}", rank));
  const auto nodes = graph.workers();
  int stride = 1;
  for (std::size_t dimension = 0; dimension < dimensions.size(); ++dimension) {
    const int size = dimensions[dimension];
    for (int rank = 0; rank < workers; ++rank) {
      const int coordinate = (rank / stride) % size;
      // With two positions the wrap-around link would duplicate the direct one.
      if (size == 2 && coordinate == 1) continue;
      const int next = rank + ((coordinate + 1) % size - coordinate) * stride;
      graph.add_link(nodes[static_cast<std::size_t>(rank)], nodes[static_cast<std::size_t>(next)], link.bandwidth,
                     link.latency, fmt::format("torus/{}", "xyz"[dimension]));
    }
    stride *= size;
  }
  return graph;
}

}  // namespace dtsim::topologies
