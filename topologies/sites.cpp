// Datacenters joined by wide-area links: each site's workers linked to the site's switch by the site's link
// (`topology.link`, or the site's own), and every pair of sites' switches by the wide-area link `wan`. A site of
// multi-device nodes (`per_node`) links each node's devices to the node's own switch by `node_link` (NVLink's
// place), and each node's switch to the site's by the site's link. A site's `fabric` may instead be any
// topology registered before this one that places neither nodes nor servers (a ring, a torus, a fat tree, a
// dragonfly...): built by that topology's own builder over the site's hosts (or its nodes' switches), with its
// own keys beside `fabric` and the site's link as its link, and reaching the site's switch, the site's border to
// the wide area, from its gateways. Workers take ranks site by site in the order listed, so that the replicas of
// a data-parallel job are placed on the sites by their counts; attached parameter servers sit at the first site.

#include "sim/core/plugin_keys.hpp"
#include "topologies/rail_fabric.hpp"
#include "topologies/topology_plugin.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dtsim::topologies {
namespace {

/// The fabrics that are not registered topologies: one switch, the site's border; and rails, which are the
/// hierarchical topology's fabric (device d of every node on rail d), not a topology of their own.
constexpr const char* kSwitchFabric = "switch";
constexpr const char* kRailFabric = "rail";

struct Site {
  std::string name;
  int workers = 0;
  LinkSpec link;
  int per_node = 1;  ///< devices a node holds; 1: each worker on the site's switch
  LinkSpec node_link;
  std::string fabric = kSwitchFabric;  ///< `switch`, `rail`, or the registered topology the site's ports form
  core::View section{nullptr, ""};     ///< the site's mapping, where its fabric's own keys are

  /// Whether the fabric is a registered topology, built by its own plug-in.
  [[nodiscard]] bool registered() const { return fabric != kSwitchFabric && fabric != kRailFabric; }
  /// The fabric's ports: each node's switch, or each worker (each device, on rails).
  [[nodiscard]] int ports() const { return per_node > 1 && fabric != kRailFabric ? workers / per_node : workers; }
};

std::vector<Site> read_sites(const core::View& section, const TopologyContext& context) {
  std::vector<Site> out;
  const LinkSpec plain = topology_link(section, context);
  const core::ConfigNode* sites = section.at("sites").node();
  for (std::size_t i = 0; sites != nullptr && i < sites->items.size(); ++i) {
    const core::View site(&sites->items[i], fmt::format("topology.sites[{}]", i));
    out.push_back(Site{.name = site.text("name"),
                       .workers = static_cast<int>(site.filled_integer("workers")),
                       .link = site.has("link") ? read_link(site.at("link")) : plain,
                       .per_node = static_cast<int>(site.filled_integer("per_node")),
                       .node_link = site.has("node_link") ? read_link(site.at("node_link")) : plain,
                       .fabric = site.has("fabric") ? site.text("fabric") : kSwitchFabric,
                       .section = site});
  }
  return out;
}

/// What the site's fabric is built for: its ports (the attached servers, `extra`, at the first site among
/// them) as the hosts, the site's link, and a seed of the site's own for fabrics drawn at random.
TopologyContext fabric_context(const Site& site, int extra, std::size_t index, const TopologyContext& context) {
  if (context.registry == nullptr) throw std::logic_error("a site's fabric is built without the topology registry");
  TopologyContext out;
  out.workers = site.ports() + extra;
  out.seed = context.seed + index;
  out.servers = 0;
  out.registry = context.registry;
  out.link = site.link;
  return out;
}

/// The attached parameter servers a site holds: all of them at the first site.
int attached_at(std::size_t index, const TopologyContext& context) { return index == 0 ? context.attached : 0; }

/// `text` with every occurrence of `from` replaced by `to`.
std::string replaced(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

/// A fabric check's words for a site: its keys are the site's (`topology.sites[i].dimensions`), its `kind` the
/// site's `fabric`, and the hosts it holds the site's, not the cluster's.
std::string as_site(const std::string& text, std::size_t index) {
  const std::string path = fmt::format("topology.sites[{}].", index);
  std::string out = replaced(replaced(text, "topology.", path), path + "kind", path + "fabric");
  out = replaced(std::move(out), "cluster.workers", "the site's workers");
  return replaced(std::move(out), "the cluster has", "the site has");
}

void check_site_fabric(const Site& site, std::size_t index, const TopologyContext& context,
                       core::DiagnosticSink& sink) {
  core::DiagnosticSink own;
  check_topology(*context.registry, site.fabric, site.section,
                 fabric_context(site, attached_at(index, context), index, context), own);
  for (const core::Diagnostic& problem : own.diagnostics()) {
    // With per_node the fabric's hosts are the site's nodes, which its checks count as workers.
    const std::string nodes =
        site.per_node > 1 ? fmt::format(" (its {} nodes are the fabric's hosts)", site.ports()) : "";
    sink.error(problem.where, as_site(problem.key, index),
               fmt::format("site '{}'{}: {}", site.name, nodes, as_site(problem.message, index)),
               as_site(problem.hint, index));
  }
}

void check_site_rails(const Site& site, std::size_t index, const TopologyContext& context, core::DiagnosticSink& sink) {
  const std::string key = fmt::format("topology.sites[{}].fabric", index);
  if (site.per_node == 1) {
    sink.error(site.section.where("fabric"), key,
               fmt::format("site '{}': a rail-optimized fabric puts device d of every node on rail d, and the site's "
                           "workers are no nodes",
                           site.name),
               "add per_node (the devices a node holds) and node_link");
  } else if (attached_at(index, context) > 0) {
    sink.error(site.section.where("fabric"), key,
               fmt::format("site '{}': a rail-optimized fabric has a rail per device of a node, and no port for the "
                           "parameter servers, which sit at the first site",
                           site.name),
               "list a site of another fabric first");
  }
}

void check_sites(const core::View& section, const TopologyContext& context, core::DiagnosticSink& sink) {
  const core::ConfigNode* sites = section.at("sites").node();
  if (sites == nullptr) return;
  const std::vector<Site> read_all = read_sites(section, context);
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
    } else if (const Site& read = read_all[i]; read.registered()) {
      check_site_fabric(read, i, context, sink);
    } else if (read.fabric == kRailFabric) {
      check_site_rails(read, i, context, sink);
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
/// fabric's ports, each node's switch or each worker (each device, on rails), in rank order. `extra` hosts
/// (attached servers) follow.
std::vector<topology::NodeId> add_site_hosts(topology::TopologyGraph& graph, const Site& site, int index, int extra,
                                             int& rank) {
  std::vector<topology::NodeId> ports;
  if (site.per_node > 1) {
    for (int node = 0; node < site.workers / site.per_node; ++node) {
      ports.push_back(graph.add_switch(fmt::format("{}.node-{}", site.name, node)));
      // A node is named by its first rank, as a worker alone is by its own: no two machines share a number.
      const int machine = rank;
      const topology::NodeId node_switch = ports.back();
      // On rails each device is a port of its own, beside its link to its node's switch.
      if (site.fabric == kRailFabric) ports.pop_back();
      for (int i = 0; i < site.per_node; ++i, ++rank) {
        const topology::NodeId worker = graph.add_worker(fmt::format("{}.worker-{}", site.name, rank), machine, index);
        graph.add_link(worker, node_switch, site.node_link.bandwidth, site.node_link.latency, "node");
        if (site.fabric == kRailFabric) ports.push_back(worker);
      }
    }
  }
  const int hosts = (site.per_node > 1 ? 0 : site.workers) + extra;
  for (int i = 0; i < hosts; ++i, ++rank) {
    ports.push_back(graph.add_worker(fmt::format("{}.worker-{}", site.name, rank), std::nullopt, index));
  }
  return ports;
}

/// Where a site's fabric reaches the site's border: the switches farthest from its hosts (a fat tree's spines,
/// a tree's root, a three-tier tree's cores), when no host hangs from them; otherwise the first switch (a
/// dragonfly's routers all hold hosts: a border linked to each would be a shortcut between them), or the
/// first host of a fabric without switches (a ring, a torus, a mesh), the site's gateway.
std::vector<topology::NodeId> site_gateways(const topology::TopologyGraph& fabric) {
  std::vector<std::vector<topology::NodeId>> neighbours(fabric.node_count());
  for (std::size_t id = 0; id < fabric.link_count(); ++id) {
    neighbours[fabric.link_ends(id).a].push_back(fabric.link_ends(id).b);
    neighbours[fabric.link_ends(id).b].push_back(fabric.link_ends(id).a);
  }
  // Hops from the nearest host, by a breadth-first search from all of them.
  std::vector<int> hops(fabric.node_count(), -1);
  std::deque<topology::NodeId> next;
  for (const topology::NodeId host : fabric.workers()) {
    hops[host] = 0;
    next.push_back(host);
  }
  while (!next.empty()) {
    const topology::NodeId node = next.front();
    next.pop_front();
    for (const topology::NodeId neighbour : neighbours[node]) {
      if (hops[neighbour] < 0) {
        hops[neighbour] = hops[node] + 1;
        next.push_back(neighbour);
      }
    }
  }
  std::vector<topology::NodeId> switches;
  for (topology::NodeId node = 0; node < fabric.node_count(); ++node) {
    if (fabric.node(node).kind == topology::NodeKind::Switch) switches.push_back(node);
  }
  if (switches.empty()) return {fabric.workers().front()};
  int farthest = 0;
  for (const topology::NodeId node : switches) farthest = std::max(farthest, hops[node]);
  if (farthest <= 1) return {switches.front()};
  std::vector<topology::NodeId> gateways;
  for (const topology::NodeId node : switches) {
    if (hops[node] == farthest) gateways.push_back(node);
  }
  return gateways;
}

/// Copies `fabric`, built over `ports`, into `graph`: its hosts are the ports, its switches are added as
/// "SITE.<name>", its links keep their widths as class "site/<class>", and its gateways reach the site's
/// switch `border` by the site's link (class `border`).
void join_site_topology(topology::TopologyGraph& graph, const Site& site, const topology::TopologyGraph& fabric,
                        std::span<const topology::NodeId> ports, topology::NodeId border) {
  if (!fabric.servers().empty() || fabric.workers().size() != ports.size()) {
    throw std::logic_error(
        fmt::format("site '{}''s {} fabric was not built over its {} ports", site.name, site.fabric, ports.size()));
  }
  std::vector<topology::NodeId> joined(fabric.node_count());
  for (std::size_t i = 0; i < ports.size(); ++i) joined[fabric.workers()[i]] = ports[i];
  for (topology::NodeId node = 0; node < fabric.node_count(); ++node) {
    if (fabric.node(node).kind == topology::NodeKind::Switch) {
      joined[node] = graph.add_switch(fmt::format("{}.{}", site.name, fabric.node(node).name));
    }
  }
  for (std::size_t id = 0; id < fabric.link_count(); ++id) {
    const topology::LinkEnds& ends = fabric.link_ends(id);
    const topology::LinkProperties& link = fabric.link(id);
    graph.add_link(joined[ends.a], joined[ends.b], link.bandwidth, link.latency, "site/" + link.link_class,
                   link.one_way);
  }
  for (const topology::NodeId gateway : site_gateways(fabric)) {
    graph.add_link(joined[gateway], border, site.link.bandwidth, site.link.latency, "border");
  }
}

/// `site`'s fabric over its ports: rails, or its registered topology.
topology::TopologyGraph site_fabric(const Site& site, int extra, std::size_t index, const TopologyContext& context) {
  if (site.fabric != kRailFabric) {
    return build_topology(*context.registry, site.fabric, site.section, fabric_context(site, extra, index, context));
  }
  const std::vector<std::size_t> nodes(static_cast<std::size_t>(site.workers / site.per_node),
                                       static_cast<std::size_t>(site.per_node));
  return build_rail_fabric(nodes, static_cast<int>(site.section.filled_integer("arity")),
                           site.section.filled_number("oversubscription"), site.link);
}

/// The nodes and links a rail site's fabric adds: a leaf a rail for each `arity` nodes, the spines, a port's
/// link, a leaf's to each spine, and a spine's (a leaf's, with one leaf) to the border.
TopologySize rail_size(const Site& site) {
  const std::int64_t arity = site.section.filled_integer("arity");
  const std::int64_t leaves = site.per_node * ((site.workers / site.per_node + arity - 1) / arity);
  const std::int64_t spines =
      leaves > 1 ? uplink_count(static_cast<int>(arity), site.section.filled_number("oversubscription")) : 0;
  return {leaves + spines, site.workers + leaves * spines + std::max<std::int64_t>(1, spines)};
}

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
    const int extra = attached_at(s, context);
    const std::vector<topology::NodeId> ports = add_site_hosts(graph, site, index, extra, rank);
    if (site.fabric == kSwitchFabric) {
      for (const topology::NodeId port : ports)
        graph.add_link(port, switches.back(), site.link.bandwidth, site.link.latency, "site");
      continue;
    }
    join_site_topology(graph, site, site_fabric(site, extra, s, context), ports, switches.back());
  }
  for (std::size_t a = 0; a < switches.size(); ++a) {
    for (std::size_t b = a + 1; b < switches.size(); ++b) {
      graph.add_link(switches[a], switches[b], wan.bandwidth, wan.latency, "wan");
    }
  }
  return graph;
}

/// Nodes and links build_sites() makes, as an upper bound: each worker with a node's switch and link of its
/// own, every pair of sites linked, and each site's fabric as its own topology counts it, with a border link
/// from each of its switches (or from one host).
TopologySize size_of_sites(const core::View& section, const TopologyContext& context) {
  const std::vector<Site> sites = read_sites(section, context);
  const auto count = static_cast<std::int64_t>(sites.size());
  TopologySize size{2 * std::int64_t{context.workers} + count,
                    2 * std::int64_t{context.workers} + count * (count - 1) / 2};
  for (std::size_t s = 0; s < sites.size(); ++s) {
    if (sites[s].fabric == kRailFabric) {
      const TopologySize rails = rail_size(sites[s]);
      size.nodes += rails.nodes;
      size.links += rails.links;
    }
    if (!sites[s].registered()) continue;
    const TopologyContext hosts = fabric_context(sites[s], attached_at(s, context), s, context);
    const TopologySize fabric = topology_size(*context.registry, sites[s].fabric, sites[s].section, hosts);
    size.nodes += fabric.nodes;
    size.links += fabric.links + std::max<std::int64_t>(1, fabric.nodes - hosts.workers);
  }
  return size;
}

/// The topologies a site's fabric may be: those registered so far that place neither nodes nor servers.
std::vector<std::string> site_fabrics(const TopologyRegistry& registry) {
  std::vector<std::string> out;
  for (const std::string& name : registry.registration_order()) {
    const TopologyPlugin& plugin = registry.find(name).factory;
    if (!plugin.places_nodes && !plugin.places_servers) out.push_back(name);
  }
  return out;
}

/// One site's keys: its own, then `fabric` and each fabric's own keys, applying when it is chosen.
core::SchemaNode site_schema(const TopologyRegistry& registry) {
  std::vector<core::SchemaNode> keys{
      core::text("name", "the site's name (its hosts are NAME.worker-RANK)").require(),
      core::integer("workers", 1, 1'000'000, "workers at the site").require(),
      link_schema("link",
                  "the link of the site's fabric: each worker's to the site's switch, or each node's with "
                  "per_node (default: `topology.link`)"),
      core::integer("per_node", 1, 1024,
                    "devices a node holds: each node's on its own switch by node_link, the node's switch a port of "
                    "the site's fabric (1: each worker a port)")
          .fallback("1"),
      link_schema("node_link", "each device's link to its node's switch (NVLink's place)")};
  std::vector<core::SchemaNode> fabric = core::plugin_keys(
      registry, site_fabrics(registry), "fabric", "site fabric",
      "how the site's ports (its workers, or its nodes' switches with per_node) reach its switch, the site's "
      "border to the wide area: each by the site's link, or as a topology of the site's link, with that "
      "topology's own keys beside `fabric`, reaching the border from its gateways",
      kSwitchFabric,
      {{kSwitchFabric, "each port linked to the site's switch by the site's link"},
       {kRailFabric,
        "rail-optimized (needs per_node): device d of every node on rail d's leaf, `arity` nodes a "
        "leaf, every leaf under the spines, oversubscribed `oversubscription` times, of the site's link"}});
  for (core::SchemaNode& key : fabric) {
    if (std::ranges::any_of(keys, [&](const core::SchemaNode& own) { return own.key == key.key; })) {
      throw std::logic_error("a site's fabric declares '" + key.key + "', one of the site's own keys");
    }
    // Rails read a fat tree's keys: nodes a leaf, and a leaf's ports over its uplinks.
    if (key.key == "arity" || key.key == "oversubscription") key.only_when.values.emplace_back(kRailFabric);
    keys.push_back(std::move(key));
  }
  return core::map_of("[]", "one site", std::move(keys));
}

}  // namespace

void register_sites(TopologyRegistry& registry) {
  registry.add(
      "sites",
      "datacenters joined by wide-area links: each site's workers on its switch (or any topology of them), every "
      "pair of sites linked by `wan`",
      {.parameters = {core::list_of("sites", "the datacenters, in rank order: each holds the next `workers` ranks",
                                    site_schema(registry))
                          .require(),
                      link_schema("wan", "the wide-area link between every pair of sites (each direction)").require()},
       .make = build_sites,
       .check = check_sites,
       .size = size_of_sites,
       .example = "{kind: sites, sites: [{name: us-east, workers: 4}, {name: eu-west, workers: 4}], wan: {bandwidth: "
                  "\"10Gbps\", latency: \"40ms\"}}"});
}

}  // namespace dtsim::topologies
