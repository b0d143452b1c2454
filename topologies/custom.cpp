#include "topologies/custom.hpp"

#include "sim/core/name_match.hpp"

#include <boost/pending/disjoint_sets.hpp>
#include <fmt/format.h>

#include <map>

namespace dtsim::topologies {
namespace {

std::string node_kind(const core::ConfigNode& node) {
  const core::ConfigNode* kind = node.find("kind");
  return kind != nullptr ? kind->scalar : "worker";
}

void check_worker_count(const core::View& t, int workers, core::DiagnosticSink& sink) {
  int declared = 0;
  for (const core::ConfigNode& item : t.at("nodes").node()->items) declared += node_kind(item) == "worker" ? 1 : 0;
  if (declared != workers) {
    sink.error(t.key_where("nodes"), "topology.nodes",
               fmt::format("declares {} worker node{} but cluster.workers is {}", declared, declared == 1 ? "" : "s",
                           workers),
               "declare one node of kind worker per worker");
  }
}

/// Every link joins two different declared nodes through a declared class, and every node is reachable.
void check_links(const core::View& t, core::DiagnosticSink& sink) {
  const core::ConfigNode* nodes = t.at("nodes").node();
  const core::ConfigNode* links = t.at("links").node();
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < nodes->items.size(); ++i) {
    const core::View node(&nodes->items[i], fmt::format("topology.nodes[{}]", i));
    if (!index.emplace(node.text("name"), i).second) {
      sink.error(node.where("name"), node.path() + ".name", fmt::format("node '{}' is declared twice", node.text("name")),
                 "node names must be unique");
    }
  }
  std::vector<std::size_t> rank(nodes->items.size());
  std::vector<std::size_t> parent(nodes->items.size());
  boost::disjoint_sets<std::size_t*, std::size_t*> components(rank.data(), parent.data());
  for (std::size_t i = 0; i < nodes->items.size(); ++i) components.make_set(i);
  std::vector<std::string> names;
  names.reserve(index.size());
  for (const auto& [name, i] : index) names.push_back(name);
  const core::View classes = t.at("link_classes");
  const std::size_t errors_before = sink.size();
  for (std::size_t i = 0; links != nullptr && i < links->items.size(); ++i) {
    const core::View link(&links->items[i], fmt::format("topology.links[{}]", i));
    std::vector<std::size_t> ends;
    for (const std::string end : {"from", "to"}) {
      const auto it = index.find(link.text(end));
      if (it != index.end()) {
        ends.push_back(it->second);
        continue;
      }
      std::string hint = fmt::format("declared nodes: {}", core::join_names(names));
      if (const auto closest = core::closest_name(link.text(end), names)) hint = fmt::format("did you mean '{}'?", *closest);
      sink.error(link.where(end), link.path() + "." + end, fmt::format("no node is named '{}'", link.text(end)), hint);
    }
    if (link.has("class") && classes.at(link.text("class")).node() == nullptr) {
      std::vector<std::string> declared;
      if (classes.node() != nullptr) {
        for (const auto& entry : classes.node()->entries) declared.push_back(entry.key);
      }
      std::string hint = "declare it under topology.link_classes";
      if (const auto closest = core::closest_name(link.text("class"), declared)) hint = fmt::format("did you mean '{}'?", *closest);
      sink.error(link.where("class"), link.path() + ".class", fmt::format("no link class is named '{}'", link.text("class")),
                 hint);
    }
    if (ends.size() == 2) {
      if (ends[0] == ends[1]) sink.error(link.where("to"), link.path() + ".to", "a link must join two different nodes");
      components.union_set(ends[0], ends[1]);
    }
  }
  if (sink.size() != errors_before) return;
  std::vector<std::string> unreachable;
  const std::size_t first = components.find_set(0);
  for (std::size_t i = 1; i < nodes->items.size(); ++i) {
    if (components.find_set(i) != first) unreachable.push_back(nodes->items[i].find("name")->scalar);
  }
  if (!unreachable.empty()) {
    sink.error(t.key_where("links"), "topology.links",
               fmt::format("the topology is disconnected: {} cannot reach {}", core::join_names(unreachable),
                           nodes->items[0].find("name")->scalar),
               "add links so that every node can reach every other");
  }
}

void check_custom(const core::View& t, const TopologyContext& context, core::DiagnosticSink& sink) {
  const core::ConfigNode* nodes = t.at("nodes").node();
  if (nodes == nullptr || nodes->items.empty()) {
    sink.error(t.where(), "topology.nodes", "a custom topology needs a list of nodes", "nodes: [{name: w0}, {name: w1}]");
    return;
  }
  check_links(t, sink);
  check_worker_count(t, context.workers, sink);
}

}  // namespace

topology::TopologyGraph build_custom(const core::View& section, const TopologyContext& context) {
  topology::TopologyGraph graph;
  std::map<std::string, topology::NodeId> by_name;
  for (const core::ConfigNode& node : section.at("nodes").node()->items) {
    const std::string name = node.find("name")->scalar;
    const std::string kind = node_kind(node);
    by_name[name] = kind == "server"   ? graph.add_server(name)
                    : kind == "switch" ? graph.add_switch(name)
                                       : graph.add_worker(name);
  }
  const LinkSpec plain = topology_link(section, context);
  const core::View classes = section.at("link_classes");
  for (const core::ConfigNode& item : section.at("links").node()->items) {
    const core::View link(&item, "");
    const core::View link_class = classes.at(link.text("class"));
    const bool classed = link.has("class") && link_class.node() != nullptr;
    const LinkSpec spec = classed ? read_link(link_class) : plain;
    graph.add_link(by_name.at(link.text("from")), by_name.at(link.text("to")), spec.bandwidth, spec.latency,
                   classed ? link.text("class") : "link");
  }
  return graph;
}

void register_custom(TopologyRegistry& registry) {
  registry.add(
      "custom", "explicit `nodes` and `links`",
      {.parameters =
           {core::dictionary_of("link_classes", "named link classes that custom links can refer to",
                                link_schema("<name>", "one link class")),
            core::list_of("nodes", "the nodes of a custom topology",
                          core::map_of("[]", "one node",
                                       {
                                           core::text("name", "unique node name; workers take ranks in the order listed")
                                               .require(),
                                           core::choice_of("kind", "node kind", "what the node is",
                                                           {{"worker", ""}, {"server", ""}, {"switch", ""}})
                                               .fallback("worker"),
                                       }))
                .require(),
            core::list_of("links", "the links of a custom topology",
                          core::map_of("[]", "one link",
                                       {
                                           core::text("from", "node name").require(),
                                           core::text("to", "node name").require(),
                                           core::text("class", "a key of `topology.link_classes`; defaults to `topology.link`"),
                                       }))
                .require()},
       .make = [](const core::View& t, const TopologyContext& c) { return build_custom(t, c); },
       .check = check_custom,
       .size = [](const core::View& t, const TopologyContext&) {
         const core::ConfigNode* links = t.at("links").node();
         return TopologySize{static_cast<std::int64_t>(t.at("nodes").node()->items.size()),
                             links != nullptr ? static_cast<std::int64_t>(links->items.size()) : 0};
       },
       .example = "{kind: custom, nodes: [{name: a}, {name: b}, {name: hub, kind: switch}], links: [{from: a, to: hub}, "
                  "{from: b, to: hub}]}",
       .example_cluster = "{workers: 2, device: {name: v100}}",
       .places_servers = true});
}

}  // namespace dtsim::topologies
