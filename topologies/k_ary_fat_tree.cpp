#include "topologies/k_ary_fat_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace dtsim::topologies {
namespace {

int ceil_div(int a, int b) { return (a + b - 1) / b; }

}  // namespace

topology::TopologyGraph build_k_ary_fat_tree(int workers, int k, double oversubscription, const LinkSpec& link,
                                             std::span<const int> port_nics) {
  if (k % 2 != 0 || workers > k * k * k / 4) {
    throw std::logic_error(fmt::format("a {}-ary fat tree cannot hold {} hosts: the scenario's checks let it through", k, workers));
  }
  const int half = k / 2;
  const int per_pod = half * half;
  topology::TopologyGraph graph;
  for (int rank = 0; rank < workers; ++rank) graph.add_worker(fmt::format("worker-{}", rank));
  const int edges = ceil_div(workers, half);
  const int pods = ceil_div(workers, per_pod);
  std::vector<topology::NodeId> edge_switches;
  for (int e = 0; e < edges; ++e) {
    edge_switches.push_back(graph.add_switch(fmt::format("pod-{}-edge-{}", e / half, e % half)));
  }
  const auto hosts = graph.workers();
  for (int rank = 0; rank < workers; ++rank) {
    graph.add_link(hosts[static_cast<std::size_t>(rank)], edge_switches[static_cast<std::size_t>(rank / half)],
                   link.bandwidth, link.latency, "edge");
  }
  if (edges == 1) return graph;
  const int aggregations = uplink_count(half, oversubscription);
  // An edge's uplinks carry its ports' capacity over o; an aggregation switch passes on to the core what its
  // pod's edges bring it (its k/2 core links, each as wide as the pod's edge uplinks on average).
  std::vector<double> edge_uplink;
  for (int e = 0; e < edges; ++e) {
    const double ports = leaf_port_links(port_nics, e * half, std::min(half, workers - e * half), half);
    edge_uplink.push_back(uplink_width(ports, oversubscription, aggregations));
  }
  std::vector<double> core_uplink;
  for (int pod = 0; pod < pods; ++pod) {
    const int last = std::min(edges, (pod + 1) * half);
    double sum = 0.0;
    for (int e = pod * half; e < last; ++e) sum += edge_uplink[static_cast<std::size_t>(e)];
    core_uplink.push_back(sum / (last - pod * half));
  }
  // aggregation[pod][a]
  std::vector<std::vector<topology::NodeId>> aggregation(static_cast<std::size_t>(pods));
  for (int pod = 0; pod < pods; ++pod) {
    for (int a = 0; a < aggregations; ++a) {
      const topology::NodeId node = graph.add_switch(fmt::format("pod-{}-aggregation-{}", pod, a));
      aggregation[static_cast<std::size_t>(pod)].push_back(node);
      for (int e = pod * half; e < std::min(edges, (pod + 1) * half); ++e) {
        graph.add_link(edge_switches[static_cast<std::size_t>(e)], node,
                       link.bandwidth * edge_uplink[static_cast<std::size_t>(e)], link.latency, "aggregation");
      }
    }
  }
  if (pods == 1) return graph;
  for (int a = 0; a < aggregations; ++a) {
    for (int c = 0; c < half; ++c) {
      const topology::NodeId core = graph.add_switch(fmt::format("core-{}", a * half + c));
      for (int pod = 0; pod < pods; ++pod) {
        graph.add_link(aggregation[static_cast<std::size_t>(pod)][static_cast<std::size_t>(a)], core,
                       link.bandwidth * core_uplink[static_cast<std::size_t>(pod)], link.latency, "core");
      }
    }
  }
  return graph;
}

std::int64_t smallest_radix(std::int64_t hosts, std::int64_t at_least) {
  std::int64_t k = std::max<std::int64_t>(2, at_least + at_least % 2);
  while (k * k * k / 4 < hosts) k += 2;
  return k;
}

void register_k_ary_fat_tree(TopologyRegistry& registry) {
  registry.add("k_ary_fat_tree", "three-tier k-ary fat tree of k-port switches (edge, aggregation, core; Al-Fares 2008)",
               {.parameters = {radix_parameter(), oversubscription_parameter()},
                .make = [](const core::View& t, const TopologyContext& c) {
                  return build_k_ary_fat_tree(c.workers, static_cast<int>(t.filled_integer("k")),
                                              t.filled_number("oversubscription"), topology_link(t, c), c.port_nics);
                },
                .check = [](const core::View& t, const TopologyContext& c, core::DiagnosticSink& sink) {
                  const std::int64_t k = t.filled_integer("k");
                  if (k % 2 != 0) {
                    sink.error(t.where("k"), "topology.k", fmt::format("k must be even (k/2 ports down, k/2 up), got {}", k),
                               fmt::format("use {} or {}", k - 1, k + 1));
                  } else if (static_cast<std::int64_t>(c.workers) > k * k * k / 4) {
                    sink.error(t.where("k"), "topology.k",
                               fmt::format("a {}-ary fat tree holds {} hosts at most, fewer than the {}", k,
                                           k * k * k / 4, c.host_count()),
                               fmt::format("k: {} holds them", smallest_radix(c.workers, k)));
                  }
                },
                .size = [](const core::View& t, const TopologyContext& c) {
                  // As build_k_ary_fat_tree: edge switches of k/2 hosts, pods of k/2 edges, each pod's aggregation
                  // switches linked to all its edges, and k/2 core switches per aggregation index linked to every pod.
                  const int half = static_cast<int>(t.filled_integer("k")) / 2;
                  const int edges = ceil_div(c.workers, half);
                  const int pods = ceil_div(c.workers, half * half);
                  const std::int64_t aggregations =
                      edges > 1 ? uplink_count(half, t.filled_number("oversubscription")) : 0;
                  const std::int64_t cores = pods > 1 ? aggregations * half : 0;
                  return TopologySize{c.workers + edges + pods * aggregations + cores,
                                      c.workers + edges * aggregations + cores * pods};
                },
                .example = "{kind: k_ary_fat_tree, k: 4}"});
}

}  // namespace dtsim::topologies
