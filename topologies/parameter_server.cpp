#include "topologies/parameter_server.hpp"

#include <fmt/format.h>

namespace dtsim::topologies {

topology::TopologyGraph build_parameter_server(int workers, int servers, const LinkSpec& worker_link,
                                               const LinkSpec& server_link) {
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

void register_parameter_server(TopologyRegistry& registry) {
  registry.add("parameter_server", "workers and parameter servers around one switch (a star)",
               {.parameters = {server_link_parameter()},
                .make = [](const core::View& t, const TopologyContext& c) {
                  const LinkSpec link = topology_link(t, c);
                  return build_parameter_server(c.workers, c.servers, link,
                                                t.has("server_link") ? read_link(t.at("server_link")) : link);
                },
                .check = {},
                .size = [](const core::View&, const TopologyContext& c) {
                  return TopologySize{std::int64_t{c.workers} + c.servers + 1, std::int64_t{c.workers} + c.servers};
                },
                .example = "{kind: parameter_server, server_link: {bandwidth: 40Gbps, latency: 5us}}",
                .places_servers = true});
}

}  // namespace dtsim::topologies
