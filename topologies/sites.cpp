// Datacenters joined by wide-area links: each site's workers linked to the site's switch by the site's link
// (`topology.link`, or the site's own), and every pair of sites' switches by the wide-area link `wan`. Workers
// take ranks site by site in the order listed, so that the replicas of a data-parallel job are placed on the
// sites by their counts; attached parameter servers sit at the first site.

#include "topologies/topology_plugin.hpp"

#include <fmt/format.h>

#include <set>

namespace dtsim::topologies {
namespace {

struct Site {
  std::string name;
  int workers = 0;
  LinkSpec link;
};

std::vector<Site> read_sites(const core::View& section, const TopologyContext& context) {
  std::vector<Site> out;
  const LinkSpec plain = topology_link(section, context);
  const core::ConfigNode* sites = section.at("sites").node();
  for (std::size_t i = 0; sites != nullptr && i < sites->items.size(); ++i) {
    const core::View site(&sites->items[i], fmt::format("topology.sites[{}]", i));
    out.push_back({site.text("name"), static_cast<int>(site.filled_integer("workers")),
                   site.has("link") ? read_link(site.at("link")) : plain});
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
    // Attached parameter servers are the last host ports: at the first site.
    const int hosts = site.workers + (s == 0 ? context.attached : 0);
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
                                           "each worker's link to the site's switch (default: "
                                           "`topology.link`)")}))
                          .require(),
                      link_schema("wan", "the wide-area link between every pair of sites (each direction)").require()},
       .make = [](const core::View& t, const TopologyContext& c) { return build_sites(t, c); },
       .check = check_sites,
       .size =
           [](const core::View& t, const TopologyContext& c) {
             const core::ConfigNode* sites = t.at("sites").node();
             const std::int64_t count = sites != nullptr ? static_cast<std::int64_t>(sites->items.size()) : 0;
             return TopologySize{c.workers + count, c.workers + count * (count - 1) / 2};
           },
       .example = "{kind: sites, sites: [{name: us-east, workers: 4}, {name: eu-west, workers: 4}], wan: {bandwidth: "
                  "\"10Gbps\", latency: \"40ms\"}}"});
}

}  // namespace dtsim::topologies
