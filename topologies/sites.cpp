// Datacenters joined by wide-area links: each site's workers linked to the site's switch by the site's link
// (`topology.link`, or the site's own), and every pair of sites' switches by the wide-area link `wan`. A site of
// multi-device nodes (`per_node`) links each node's devices to the node's own switch by `node_link` (NVLink's
// place), and each node's switch to the site's by the site's link. Workers take ranks site by site in the order
// listed, so that the replicas of a data-parallel job are placed on the sites by their counts; attached
// parameter servers sit at the first site.

#include "topologies/topology_plugin.hpp"

#include <fmt/format.h>

#include <set>

namespace dtsim::topologies {
namespace {

struct Site {
  std::string name;
  int workers = 0;
  LinkSpec link;
  int per_node = 1;  ///< devices a node holds; 1: each worker on the site's switch
  LinkSpec node_link;
};

std::vector<Site> read_sites(const core::View& section, const TopologyContext& context) {
  std::vector<Site> out;
  const LinkSpec plain = topology_link(section, context);
  const core::ConfigNode* sites = section.at("sites").node();
  for (std::size_t i = 0; sites != nullptr && i < sites->items.size(); ++i) {
    const core::View site(&sites->items[i], fmt::format("topology.sites[{}]", i));
    const int per_node = static_cast<int>(site.filled_integer("per_node"));
    out.push_back({site.text("name"), static_cast<int>(site.filled_integer("workers")),
                   site.has("link") ? read_link(site.at("link")) : plain, per_node,
                   site.has("node_link") ? read_link(site.at("node_link")) : plain});
  }
  return out;
}

void check_sites(const core::View& section, const TopologyContext& context, core::DiagnosticSink& sink) {
  const core::ConfigNode* sites = section.at("sites").node();
  if (sites == nullptr) return;
  std::set<std::string> names;
  std::int64_t placed = 0;
  for (std::size_t i = 0; i < sites->items.size(); ++i) {
    const core::View site(&sites->items[i], fmt::format("topology.sites[{}]", i));
    if (!names.insert(site.text("name")).second) {
      sink.error(site.where("name"), fmt::format("topology.sites[{}].name", i),
                 fmt::format("site '{}' is named twice", site.text("name")), "give every site a name of its own");
    }
    placed += site.filled_integer("workers");
    const std::int64_t per_node = site.filled_integer("per_node");
    if (site.filled_integer("workers") % per_node != 0) {
      sink.error(site.where("per_node"), fmt::format("topology.sites[{}].per_node", i),
                 fmt::format("site '{}' holds {} workers, not whole nodes of {}", site.text("name"),
                             site.filled_integer("workers"), per_node),
                 "make the site's workers a multiple of per_node");
    }
    if (per_node > 1 && !site.has("node_link")) {
      sink.error(site.where("per_node"), fmt::format("topology.sites[{}].node_link", i),
                 "a site of multi-device nodes needs the link inside a node",
                 "add node_link: {bandwidth: \"900GB/s\", latency: \"1us\"}");
    }
  }
  const std::int64_t workers = context.workers - context.attached;
  if (placed != workers) {
    sink.error(section.where("sites"), "topology.sites",
               fmt::format("the sites hold {} workers, and the cluster has {}", placed, workers),
               "make the sites' workers add up to cluster.workers");
  }
}

}  // namespace

topology::TopologyGraph build_sites(const core::View& section, const TopologyContext& context) {
  topology::TopologyGraph graph;
  const std::vector<Site> sites = read_sites(section, context);
  const LinkSpec wan = read_link(section.at("wan"));
  std::vector<topology::NodeId> switches;
  int rank = 0;
  for (std::size_t s = 0; s < sites.size(); ++s) {
    const Site& site = sites[s];
    switches.push_back(graph.add_switch(site.name + ".switch"));
    const int index = graph.add_site(site.name);
    if (site.per_node > 1) {
      // Nodes of per_node devices, each on its node's switch, the node's switch on the site's.
      for (int node = 0; node < site.workers / site.per_node; ++node) {
        const topology::NodeId hub = graph.add_switch(fmt::format("{}.node-{}", site.name, node));
        graph.add_link(hub, switches.back(), site.link.bandwidth, site.link.latency, "site");
        // A node is named by its first rank, as a worker alone is by its own: no two machines share a number.
        const int machine = rank;
        for (int i = 0; i < site.per_node; ++i, ++rank) {
          const topology::NodeId worker =
              graph.add_worker(fmt::format("{}.worker-{}", site.name, rank), machine, index);
          graph.add_link(worker, hub, site.node_link.bandwidth, site.node_link.latency, "node");
        }
      }
    }
    // Attached parameter servers are the last host ports: at the first site.
    const int hosts = (site.per_node > 1 ? 0 : site.workers) + (s == 0 ? context.attached : 0);
    for (int i = 0; i < hosts; ++i, ++rank) {
      const topology::NodeId worker =
          graph.add_worker(fmt::format("{}.worker-{}", site.name, rank), std::nullopt, index);
      graph.add_link(worker, switches.back(), site.link.bandwidth, site.link.latency, "site");
    }
  }
  for (std::size_t a = 0; a < switches.size(); ++a) {
    for (std::size_t b = a + 1; b < switches.size(); ++b) {
      graph.add_link(switches[a], switches[b], wan.bandwidth, wan.latency, "wan");
    }
  }
  return graph;
}

void register_sites(TopologyRegistry& registry) {
  registry.add(
      "sites",
      "datacenters joined by wide-area links: each site's workers on its switch, every pair of sites linked by `wan`",
      {.parameters = {core::list_of(
                          "sites", "the datacenters, in rank order: each holds the next `workers` ranks",
                          core::map_of(
                              "[]", "one site",
                              {core::text("name", "the site's name (its hosts are NAME.worker-RANK)").require(),
                               core::integer("workers", 1, 1'000'000, "workers at the site").require(),
                               link_schema("link",
                                           "each worker's link to the site's switch, or each node's with per_node "
                                           "(default: `topology.link`)"),
                               core::integer("per_node", 1, 1024,
                                             "devices a node holds: each node's on its own switch by node_link, the "
                                             "node's switch on the site's (1: each worker on the site's switch)")
                                   .fallback("1"),
                               link_schema("node_link", "each device's link to its node's switch (NVLink's place)")}))
                          .require(),
                      link_schema("wan", "the wide-area link between every pair of sites (each direction)").require()},
       .make = [](const core::View& t, const TopologyContext& c) { return build_sites(t, c); },
       .check = check_sites,
       .size =
           [](const core::View& t, const TopologyContext& c) {
             const core::ConfigNode* sites = t.at("sites").node();
             const std::int64_t count = sites != nullptr ? static_cast<std::int64_t>(sites->items.size()) : 0;
             // Nodes add a switch and a link each: at most one per worker.
             return TopologySize{2 * c.workers + count, 2 * c.workers + count * (count - 1) / 2};
           },
       .example = "{kind: sites, sites: [{name: us-east, workers: 4}, {name: eu-west, workers: 4}], wan: {bandwidth: "
                  "\"10Gbps\", latency: \"40ms\"}}"});
}

}  // namespace dtsim::topologies
