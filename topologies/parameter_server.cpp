#include "topologies/parameter_server.hpp"

#include <fmt/format.h>

namespace dtsim::topologies {

int parameter_servers(const scenario::Scenario& s) {
  return scenario::has_servers(s.training.architecture) ? s.training.shards : 1;
}

topology::TopologyGraph build_parameter_server(int workers, int servers, const scenario::LinkSpec& worker_link,
                                               const scenario::LinkSpec& server_link) {
  topology::TopologyGraph graph;
  for (int rank = 0; rank < workers; ++rank) graph.add_worker(fmt::format("worker-{}", rank));
  for (int index = 0; index < servers; ++index) graph.add_server(fmt::format("server-{}", index));
  const topology::NodeId hub = graph.add_switch("switch-0");
  for (const topology::NodeId worker : graph.workers()) {
    graph.add_link(worker, hub, worker_link.bandwidth, worker_link.latency, "worker");
  }
  for (const topology::NodeId server : graph.servers()) {
    graph.add_link(server, hub, server_link.bandwidth, server_link.latency, "server");
  }
  return graph;
}

}  // namespace dtsim::topologies
