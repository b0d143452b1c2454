// Datacenters joined by wide-area links: each site's workers linked to the site's switch by the site's link
// (`topology.link`, or the site's own), and every pair of sites' switches by the wide-area link `wan`. A site of
// multi-device nodes (`per_node`) links each node's devices to the node's own switch by `node_link` (NVLink's
// place), and each node's switch to the site's by the site's link. A site's `fabric: fat_tree` puts its hosts
// (or its nodes' switches) under a leaf-spine fat tree of its own instead, whose spines reach the site's switch,
// the site's border to the wide area. Workers take ranks site by site in the order listed, so that the replicas
// of a data-parallel job are placed on the sites by their counts; attached parameter servers sit at the first
// site.

#include "topologies/fat_tree.hpp"
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
  bool fat_tree = false;  ///< `fabric: fat_tree`; otherwise one switch
  int arity = 2;
  double oversubscription = 1.0;

  /// The fabric's ports: each node's switch, or each worker.
  [[nodiscard]] int ports() const { return per_node > 1 ? workers / per_node : workers; }
};

std::vector<Site> read_sites(const core::View& section, const TopologyContext& context) {
  std::vector<Site> out;
  const LinkSpec plain = topology_link(section, context);
  const core::ConfigNode* sites = section.at("sites").node();
  for (std::size_t i = 0; sites != nullptr && i < sites->items.size(); ++i) {
    const core::View site(&sites->items[i], fmt::format("topology.sites[{}]", i));
    Site read{.name = site.text("name"),
              .workers = static_cast<int>(site.filled_integer("workers")),
              .link = site.has("link") ? read_link(site.at("link")) : plain,
              .per_node = static_cast<int>(site.filled_integer("per_node")),
              .node_link = site.has("node_link") ? read_link(site.at("node_link")) : plain,
              .fat_tree = site.has("fabric") && site.text("fabric") == "fat_tree"};
    if (read.fat_tree) {
      read.arity = static_cast<int>(site.filled_integer("arity"));
      read.oversubscription = site.filled_number("oversubscription");
    }
    out.push_back(std::move(read));
  }
  return out;
}

/// The nodes and links `site`'s fat tree adds: its leaves and spines, the links from its ports to the leaves,
/// between leaves and spines, and from its top switches to the site's switch.
TopologySize fat_tree_size(const Site& site) {
  const std::int64_t ports = site.ports();
  const std::int64_t leaves = (ports + site.arity - 1) / site.arity;
  const std::int64_t spines = leaves > 1 ? uplink_count(site.arity, site.oversubscription) : 0;
  return {leaves + spines, ports + leaves * spines + std::max<std::int64_t>(spines, 1)};
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

/// Adds `site`'s hosts to `graph` from rank `rank` on (each node's devices on the node's own switch): the
/// fabric's ports, each node's switch or each worker, in rank order. `extra` hosts (attached servers) follow.
std::vector<topology::NodeId> add_site_hosts(topology::TopologyGraph& graph, const Site& site, int index, int extra,
                                             int& rank) {
  std::vector<topology::NodeId> ports;
  if (site.per_node > 1) {
    for (int node = 0; node < site.workers / site.per_node; ++node) {
      ports.push_back(graph.add_switch(fmt::format("{}.node-{}", site.name, node)));
      // A node is named by its first rank, as a worker alone is by its own: no two machines share a number.
      const int machine = rank;
      for (int i = 0; i < site.per_node; ++i, ++rank) {
        const topology::NodeId worker = graph.add_worker(fmt::format("{}.worker-{}", site.name, rank), machine, index);
        graph.add_link(worker, ports.back(), site.node_link.bandwidth, site.node_link.latency, "node");
      }
    }
  }
  const int hosts = (site.per_node > 1 ? 0 : site.workers) + extra;
  for (int i = 0; i < hosts; ++i, ++rank) {
    ports.push_back(graph.add_worker(fmt::format("{}.worker-{}", site.name, rank), std::nullopt, index));
  }
  return ports;
}

/// Joins `ports` to the site's switch `border`: each by the site's link, or through the site's fat tree, its
/// ports linked to the leaves by the site's link (class `site`), its leaves to its spines (`spine`), and its
/// spines (its leaf, when one leaf holds the site) to the border by the site's link (`border`).
void join_site_fabric(topology::TopologyGraph& graph, const Site& site, std::span<const topology::NodeId> ports,
                      topology::NodeId border) {
  if (!site.fat_tree) {
    for (const topology::NodeId port : ports)
      graph.add_link(port, border, site.link.bandwidth, site.link.latency, "site");
    return;
  }
  const topology::TopologyGraph tree =
      build_fat_tree(static_cast<int>(ports.size()), site.arity, site.oversubscription, site.link);
  std::vector<topology::NodeId> joined(tree.node_count());
  for (std::size_t i = 0; i < tree.workers().size(); ++i) joined[tree.workers()[i]] = ports[i];
  // The top switches are those no host hangs from (the spines); a tree of one leaf has only that leaf.
  std::vector<bool> holds_hosts(tree.node_count(), false);
  for (std::size_t id = 0; id < tree.link_count(); ++id) {
    if (tree.link(id).link_class == "leaf") {
      holds_hosts[tree.link_ends(id).a] = true;
      holds_hosts[tree.link_ends(id).b] = true;
    }
  }
  std::vector<topology::NodeId> switches;
  for (topology::NodeId node = 0; node < tree.node_count(); ++node) {
    if (tree.node(node).kind != topology::NodeKind::Switch) continue;
    joined[node] = graph.add_switch(fmt::format("{}.{}", site.name, tree.node(node).name));
    switches.push_back(node);
  }
  std::vector<topology::NodeId> top;
  for (const topology::NodeId node : switches) {
    if (!holds_hosts[node]) top.push_back(joined[node]);
  }
  if (top.empty()) top.push_back(joined[switches.front()]);
  for (std::size_t id = 0; id < tree.link_count(); ++id) {
    const topology::LinkEnds& ends = tree.link_ends(id);
    const topology::LinkProperties& link = tree.link(id);
    graph.add_link(joined[ends.a], joined[ends.b], link.bandwidth, link.latency,
                   link.link_class == "leaf" ? "site" : "spine");
  }
  for (const topology::NodeId node : top)
    graph.add_link(node, border, site.link.bandwidth, site.link.latency, "border");
}

}  // namespace

topology::TopologyGraph build_sites(const core::View& section, const TopologyContext& context) {
  topology::TopologyGraph graph;
  const std::vector<Site> sites = read_sites(section, context);
  const LinkSpec wan = read_link(section.at("wan"));
  std::vector<topology::NodeId> switches;
  int rank = 0;
  for (std::size_t s = 0; s < sites.size(); ++s) {
    switches.push_back(graph.add_switch(sites[s].name + ".switch"));
    const int index = graph.add_site(sites[s].name);
    // Attached parameter servers are the last host ports: at the first site.
    const std::vector<topology::NodeId> ports =
        add_site_hosts(graph, sites[s], index, s == 0 ? context.attached : 0, rank);
    join_site_fabric(graph, sites[s], ports, switches.back());
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
                               link_schema("node_link", "each device's link to its node's switch (NVLink's place)"),
                               core::choice_of("fabric", "site fabric",
                                               "how the site's hosts (each node's switch, with per_node) reach its "
                                               "switch, the site's border to the wide area",
                                               {{"switch", "each linked to the site's switch by the site's link"},
                                                {"fat_tree",
                                                 "under a two-level leaf-spine fat tree of the site's link, `arity` "
                                                 "ports a leaf, oversubscribed `oversubscription` times, whose "
                                                 "spines reach the site's switch by the site's link"}})
                                   .fallback("switch"),
                               arity_parameter().when("fabric", {"fat_tree"}),
                               oversubscription_parameter().when("fabric", {"fat_tree"})}))
                          .require(),
                      link_schema("wan", "the wide-area link between every pair of sites (each direction)").require()},
       .make = [](const core::View& t, const TopologyContext& c) { return build_sites(t, c); },
       .check = check_sites,
       .size =
           [](const core::View& t, const TopologyContext& c) {
             const std::vector<Site> sites = read_sites(t, c);
             const auto count = static_cast<std::int64_t>(sites.size());
             // Nodes add a switch and a link each: at most one per worker. A fat tree's links from its ports
             // replace theirs to the site's switch: counted twice, an upper bound.
             TopologySize size{2 * c.workers + count, 2 * c.workers + count * (count - 1) / 2};
             for (const Site& site : sites) {
               if (!site.fat_tree) continue;
               const TopologySize tree = fat_tree_size(site);
               size.nodes += tree.nodes;
               size.links += tree.links;
             }
             return size;
           },
       .example = "{kind: sites, sites: [{name: us-east, workers: 4}, {name: eu-west, workers: 4}], wan: {bandwidth: "
                  "\"10Gbps\", latency: \"40ms\"}}"});
}

}  // namespace dtsim::topologies
