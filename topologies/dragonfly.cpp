// Dragonfly (Kim, Dally, Scott and Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008):
// groups of routers, every router of a group linked to every other (local links), `hosts` workers on each
// router, and `global_links` links from each router to routers of other groups. A group's a x h global ports
// are numbered j = router x h + k; port j of group i joins group (i + (j mod (g-1)) + 1) mod g at the port
// that points back, so with g = a h + 1 groups (the largest, as in the paper) every pair of groups has
// exactly one global link, and with fewer each pair gets one per round of g - 1 ports. Minimal routes are
// local, global, local: at most five hops between two hosts.

#include "topologies/topology_plugin.hpp"

#include <fmt/format.h>

#include <vector>

namespace dtsim::topologies {
namespace {

struct Shape {
  int groups = 1;
  int routers = 1;       ///< per group
  int hosts = 1;         ///< per router
  int global_links = 0;  ///< per router
};

Shape shape_of(const core::View& t) {
  return {static_cast<int>(*t.integer("groups")), static_cast<int>(*t.integer("routers")),
          static_cast<int>(*t.integer("hosts")), static_cast<int>(*t.integer("global_links"))};
}

topology::TopologyGraph build_dragonfly(const core::View& t, const TopologyContext& c) {
  const Shape d = shape_of(t);
  const LinkSpec link = topology_link(t, c);
  const LinkSpec global = t.has("global_link") ? read_link(t.at("global_link")) : link;
  topology::TopologyGraph graph;
  std::vector<topology::NodeId> hosts;
  for (int rank = 0; rank < d.groups * d.routers * d.hosts; ++rank) hosts.push_back(graph.add_worker(fmt::format("worker-{}", rank)));
  std::vector<std::vector<topology::NodeId>> routers(static_cast<std::size_t>(d.groups));
  for (int g = 0; g < d.groups; ++g) {
    for (int r = 0; r < d.routers; ++r) {
      routers[static_cast<std::size_t>(g)].push_back(graph.add_switch(fmt::format("group-{}-router-{}", g, r)));
    }
  }
  for (int g = 0; g < d.groups; ++g) {
    const auto& group = routers[static_cast<std::size_t>(g)];
    for (int r = 0; r < d.routers; ++r) {
      for (int h = 0; h < d.hosts; ++h) {
        const auto rank = static_cast<std::size_t>((g * d.routers + r) * d.hosts + h);
        graph.add_link(hosts[rank], group[static_cast<std::size_t>(r)], link.bandwidth, link.latency, "host");
      }
    }
    for (std::size_t a = 0; a < group.size(); ++a) {
      for (std::size_t b = a + 1; b < group.size(); ++b) graph.add_link(group[a], group[b], link.bandwidth, link.latency, "local");
    }
  }
  if (d.groups < 2) return graph;
  const int ports = d.routers * d.global_links;
  const int others = d.groups - 1;
  for (int g = 0; g < d.groups; ++g) {
    for (int port = 0; port < ports; ++port) {
      const int round = port / others;
      const int offset = port % others;
      const int peer = (g + offset + 1) % d.groups;
      const int peer_port = round * others + (others - 1 - offset);
      // Each link once, from its lower group; a port whose partner lies past the last port stays free.
      if (peer < g || peer_port >= ports) continue;
      graph.add_link(routers[static_cast<std::size_t>(g)][static_cast<std::size_t>(port / d.global_links)],
                     routers[static_cast<std::size_t>(peer)][static_cast<std::size_t>(peer_port / d.global_links)],
                     global.bandwidth, global.latency, "global");
    }
  }
  return graph;
}

void check_dragonfly(const core::View& t, const TopologyContext& context, core::DiagnosticSink& sink) {
  const Shape d = shape_of(t);
  const std::int64_t hosts = static_cast<std::int64_t>(d.groups) * d.routers * d.hosts;
  if (hosts != context.workers) {
    sink.error(t.where("groups"), "topology.groups",
               fmt::format("the dragonfly holds {} x {} x {} = {} hosts but the cluster has {}", d.groups, d.routers,
                           d.hosts, hosts, context.host_count()),
               context.attached == 0 ? "make groups x routers x hosts equal cluster.workers"
                                     : "make groups x routers x hosts equal the workers and servers together");
  }
  if (d.groups > 1 && static_cast<std::int64_t>(d.routers) * d.global_links < d.groups - 1) {
    sink.error(t.where("global_links"), "topology.global_links",
               fmt::format("a group has {} x {} global ports, too few to reach the {} other groups", d.routers,
                           d.global_links, d.groups - 1),
               fmt::format("use at least {} global links per router, or fewer groups",
                           (d.groups - 1 + d.routers - 1) / d.routers));
  }
}

/// The links build_dragonfly() makes, counted as it makes them: a router's hosts, its group's local links and the
/// global links (a port pairing with a port past the last stays free, so these are counted port by port).
TopologySize size_of_dragonfly(const core::View& t, const TopologyContext&) {
  const Shape d = shape_of(t);
  const std::int64_t routers = std::int64_t{d.groups} * d.routers;
  const std::int64_t local = d.groups * (std::int64_t{d.routers} * (d.routers - 1) / 2);
  TopologySize size{routers * d.hosts + routers, routers * d.hosts + local};
  if (d.groups < 2) return size;
  const int ports = d.routers * d.global_links;
  const int others = d.groups - 1;
  for (int g = 0; g < d.groups; ++g) {
    for (int port = 0; port < ports; ++port) {
      const int offset = port % others;
      const int peer = (g + offset + 1) % d.groups;
      const int peer_port = port / others * others + (others - 1 - offset);
      if (peer >= g && peer_port < ports) ++size.links;
    }
  }
  return size;
}

}  // namespace

void register_dragonfly(TopologyRegistry& registry) {
  registry.add(
      "dragonfly", "groups of all-to-all routers joined by global links (Kim et al. 2008)",
      {.parameters = {core::integer("groups", 1, 4096, "number of groups").require(),
                      core::integer("routers", 1, 256, "routers per group, linked all-to-all").require(),
                      core::integer("hosts", 1, 256, "workers per router").require(),
                      core::integer("global_links", 0, 256, "links from each router to routers of other groups").require(),
                      link_schema("global_link", "the link class of the global links; defaults to `link`")},
       .make = build_dragonfly,
       .check = check_dragonfly,
       .size = size_of_dragonfly,
       .example = "{kind: dragonfly, groups: 9, routers: 4, hosts: 2, global_links: 2}",
       .example_cluster = "{workers: 72, device: {name: v100}}"});
}

}  // namespace dtsim::topologies
