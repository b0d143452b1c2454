#include "topologies/custom.hpp"

#include <map>

namespace dtsim::topologies {

topology::TopologyGraph build_custom(const scenario::TopologySpec& spec) {
  topology::TopologyGraph graph;
  std::map<std::string, topology::NodeId> by_name;
  for (const auto& node : spec.nodes) {
    switch (node.kind) {
      case scenario::CustomNodeKind::Worker: by_name[node.name] = graph.add_worker(node.name); break;
      case scenario::CustomNodeKind::Server: by_name[node.name] = graph.add_server(node.name); break;
      case scenario::CustomNodeKind::Switch: by_name[node.name] = graph.add_switch(node.name); break;
    }
  }
  for (const auto& link : spec.links) {
    graph.add_link(by_name.at(link.from), by_name.at(link.to), link.link.bandwidth, link.link.latency,
                   link.link_class.empty() ? "link" : link.link_class);
  }
  return graph;
}

}  // namespace dtsim::topologies
