#include "topologies/topology_plugin.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace dtsim::topologies {

LinkSpec read_link(const core::View& link) {
  return LinkSpec{*link.quantity("bandwidth", core::parse_bandwidth), *link.quantity("latency", core::parse_duration)};
}

LinkSpec topology_link(const core::View& section, const TopologyContext& context) {
  return context.link ? *context.link : read_link(section.at("link"));
}

core::SchemaNode link_schema(std::string key, std::string description) {
  using core::quantity;
  return core::map_of(std::move(key), std::move(description),
                      {
                          quantity("bandwidth", core::Unit::Bandwidth, "bandwidth of each direction")
                              .require()
                              .exclusive_min()
                              .for_example("\"10Gbps\""),
                          quantity("latency", core::Unit::Duration, "one-way latency").require().for_example("\"5us\""),
                          core::choice_of("sharing", "link sharing", "how flows crossing the link share it",
                                          {{"shared", "each direction is shared fairly by the flows crossing it"},
                                           {"fatpipe", "every flow gets the full bandwidth (a non-blocking switch)", true}})
                              .fallback("shared"),
                      });
}

core::SchemaNode arity_parameter() {
  return core::integer("arity", 2, 64,
                       "children per switch (tree), workers per leaf switch (fat_tree); for hierarchical, the fabric's")
      .fallback("2");
}

core::SchemaNode oversubscription_parameter() {
  return core::number("oversubscription", 1.0, 64.0, "a leaf's downlink capacity over its uplink capacity").fallback("1");
}

core::SchemaNode radix_parameter() {
  return core::integer("k", 2, 256, "ports per switch of a k-ary fat tree (even): k pods, k^3/4 hosts at most")
      .fallback("4");
}

core::SchemaNode server_link_parameter() {
  return link_schema("server_link", "link from the switch to each server; defaults to `link`");
}

int uplink_count(int ports, double oversubscription) {
  return std::max(1, static_cast<int>(std::ceil(ports / oversubscription - 1e-9)));
}

double leaf_port_links(std::span<const int> port_nics, int first, int used, int ports) {
  std::int64_t links = 0;
  for (int port = first; port < first + used; ++port) {
    links += static_cast<std::size_t>(port) < port_nics.size() ? port_nics[static_cast<std::size_t>(port)] : 1;
  }
  // Whole numbers until the one division: single-NIC ports give `ports` exactly.
  return static_cast<double>(links * ports) / used;
}

double uplink_width(double port_links, double oversubscription, int uplinks) {
  return port_links / (oversubscription * uplinks);
}

std::string TopologyContext::host_count() const {
  if (attached == 0) return fmt::format("{} workers", workers);
  return fmt::format("{} workers and {} server{}", workers - attached, attached, attached == 1 ? "" : "s");
}

namespace {

/// The context `kind`'s builder and check see: attached servers counted among its hosts.
TopologyContext context_for(const TopologyRegistry& registry, const TopologyPlugin& plugin, const TopologyContext& context) {
  TopologyContext out = context;
  out.registry = &registry;
  if (context.attach_servers && !plugin.places_servers && context.attached == 0) {
    out.attached = context.servers;
    out.workers += context.servers;
  }
  return out;
}

/// `section` with every key `plugin` declares a default for and the section lacks filled in, as validation
/// fills a scenario's: the defaults are the declarations', for sections no validation saw (a hierarchical
/// topology's fabric reads its keys from the hierarchy's section; tools and tests build sections by hand).
core::ConfigNode with_declared_defaults(const TopologyPlugin& plugin, const core::View& section) {
  core::ConfigNode out = section.node() != nullptr ? *section.node() : core::ConfigNode::make_map(section.where());
  for (const core::SchemaNode& declared : plugin.parameters) {
    if (out.find(declared.key) != nullptr || declared.default_value.empty()) continue;
    core::ConfigNode value = core::ConfigNode::make_scalar(declared.default_value, section.where());
    value.defaulted = true;
    out.set(declared.key, std::move(value), section.where());
  }
  return out;
}

}  // namespace

topology::TopologyGraph build_topology(const TopologyRegistry& registry, const std::string& kind,
                                       const core::View& section, const TopologyContext& context) {
  const TopologyPlugin& plugin = registry.find(kind).factory;
  const TopologyContext hosts = context_for(registry, plugin, context);
  const core::ConfigNode complete = with_declared_defaults(plugin, section);
  topology::TopologyGraph graph = plugin.make(core::View(&complete, section.path()), hosts);
  if (hosts.attached == 0) return graph;
  return with_servers_on_last_hosts(graph, hosts.attached);
}

TopologySize topology_size(const TopologyRegistry& registry, const std::string& kind, const core::View& section,
                           const TopologyContext& context) {
  const TopologyPlugin& plugin = registry.find(kind).factory;
  if (!plugin.size) return {};
  const core::ConfigNode complete = with_declared_defaults(plugin, section);
  return plugin.size(core::View(&complete, section.path()), context_for(registry, plugin, context));
}

void check_topology(const TopologyRegistry& registry, const std::string& kind, const core::View& section,
                    const TopologyContext& context, core::DiagnosticSink& sink) {
  const TopologyPlugin& plugin = registry.find(kind).factory;
  const TopologyContext hosts = context_for(registry, plugin, context);
  const std::size_t errors_before = sink.size();
  if (plugin.check) {
    const core::ConfigNode complete = with_declared_defaults(plugin, section);
    plugin.check(core::View(&complete, section.path()), hosts, sink);
  }
  // A section its own check refuses has no size to speak of (a torus that does not hold the workers).
  if (sink.size() != errors_before) return;
  const TopologySize size = topology_size(registry, kind, section, context);
  if (size.links > kMaxTopologyLinks) {
    sink.error(section.where("kind"), "topology.kind",
               fmt::format("a {} topology of {} has {} links, more than the {} dtsim builds", kind, hosts.host_count(),
                           size.links, kMaxTopologyLinks),
               "join the workers through switches (fat_tree, k_ary_fat_tree, hierarchical) or with fewer links each "
               "(ring, torus), or use fewer workers");
  }
}

topology::TopologyGraph with_servers_on_last_hosts(const topology::TopologyGraph& graph, int servers) {
  const auto workers = graph.workers();
  if (servers < 0 || static_cast<std::size_t>(servers) > workers.size() || !graph.servers().empty()) {
    throw std::invalid_argument(fmt::format("cannot make {} of {} hosts servers", servers, workers.size()));
  }
  const std::size_t kept = workers.size() - static_cast<std::size_t>(servers);
  std::vector<int> server_index(graph.node_count(), -1);
  for (std::size_t i = kept; i < workers.size(); ++i) server_index[workers[i]] = static_cast<int>(i - kept);
  std::vector<int> rank_of(graph.node_count(), -1);
  for (std::size_t rank = 0; rank < kept; ++rank) rank_of[workers[rank]] = static_cast<int>(rank);

  // Nodes in their original order keep their ids; workers keep their ranks as long as builders add them in
  // rank order, which the check below makes sure of.
  topology::TopologyGraph out;
  for (topology::NodeId node = 0; node < graph.node_count(); ++node) {
    const topology::NodeProperties& properties = graph.node(node);
    topology::NodeId added = 0;
    if (server_index[node] >= 0) {
      added = out.add_server(fmt::format("server-{}", server_index[node]));
    } else if (properties.kind == topology::NodeKind::Worker) {
      const int rank = rank_of[node];
      added = out.add_worker(properties.name, graph.worker_machines()[static_cast<std::size_t>(rank)]);
      if (out.workers().size() != static_cast<std::size_t>(rank) + 1) {
        throw std::logic_error("a topology builder added its workers out of rank order");
      }
    } else {
      added = out.add_switch(properties.name);
    }
    if (added != node) throw std::logic_error("node ids changed while attaching servers");
  }
  for (std::size_t id = 0; id < graph.link_count(); ++id) {
    const topology::LinkEnds& ends = graph.link_ends(id);
    const topology::LinkProperties& link = graph.link(id);
    out.add_link(ends.a, ends.b, link.bandwidth, link.latency, link.link_class, link.one_way);
  }
  return out;
}

}  // namespace dtsim::topologies
