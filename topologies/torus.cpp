#include "topologies/torus.hpp"

#include <fmt/format.h>

#include <functional>
#include <numeric>

namespace dtsim::topologies {

topology::TopologyGraph build_torus(const std::vector<int>& dimensions, const LinkSpec& link) {
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

void register_torus(TopologyRegistry& registry) {
  registry.add(
      "torus", "2D or 3D torus, wrapping around in every dimension",
      {.parameters = {core::list_of("dimensions", "size of each torus dimension (2 or 3 of them)",
                                    core::integer("[]", 2, 4096, "workers along one dimension"))
                          .require()},
       .make = [](const core::View& t, const TopologyContext& c) {
         std::vector<int> dimensions;
         for (const core::ConfigNode& d : t.at("dimensions").node()->items) {
           dimensions.push_back(static_cast<int>(core::parse_integer(d.scalar).value_or(2)));
         }
         return build_torus(dimensions, topology_link(t, c));
       },
       .check = [](const core::View& t, const TopologyContext& c, core::DiagnosticSink& sink) {
         const core::ConfigNode* dims = t.at("dimensions").node();
         if (dims == nullptr) return;
         std::int64_t product = 1;
         for (const auto& d : dims->items) product *= core::parse_integer(d.scalar).value_or(1);
         if (dims->items.size() < 2 || dims->items.size() > 3) {
           sink.error(dims->where, "topology.dimensions",
                      fmt::format("a torus has 2 or 3 dimensions, got {}", dims->items.size()));
         } else if (product != c.workers) {
           sink.error(dims->where, "topology.dimensions",
                      fmt::format("the torus holds {} hosts but the cluster has {}", product, c.host_count()));
         }
       },
       .size = [](const core::View& t, const TopologyContext& c) {
         // A link from every host to its next one along each dimension; along a dimension of two, one per pair.
         TopologySize size{c.workers, 0};
         const core::ConfigNode* dimensions = t.at("dimensions").node();
         if (dimensions == nullptr) return size;  // its check has refused it
         for (const core::ConfigNode& d : dimensions->items) {
           size.links += core::parse_integer(d.scalar).value_or(2) == 2 ? c.workers / 2 : c.workers;
         }
         return size;
       },
       .example = "{kind: torus, dimensions: [2, 4]}"});
}

}  // namespace dtsim::topologies
