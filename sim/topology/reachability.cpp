#include "sim/topology/reachability.hpp"

#include <algorithm>
#include <limits>

namespace dtsim::topology {

std::optional<NodeId> find_switch(const TopologyGraph& graph, const std::string& name) {
  for (NodeId node = 0; node < graph.node_count(); ++node) {
    if (graph.node(node).kind == NodeKind::Switch && graph.node(node).name == name) return node;
  }
  return std::nullopt;
}

std::vector<std::size_t> links_at(const TopologyGraph& graph, NodeId node) {
  std::vector<std::size_t> out;
  for (std::size_t id = 0; id < graph.link_count(); ++id) {
    const LinkEnds& ends = graph.link_ends(id);
    if (ends.a == node || ends.b == node) out.push_back(id);
  }
  return out;
}

std::vector<std::size_t> groups_without(const TopologyGraph& graph, const std::vector<bool>& down) {
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  // Union-find over the working links: near linear in the links, for any size of cluster.
  std::vector<std::size_t> parent(graph.node_count());
  for (std::size_t n = 0; n < parent.size(); ++n) parent[n] = n;
  const auto root = [&](std::size_t n) {
    while (parent[n] != n) n = parent[n] = parent[parent[n]];
    return n;
  };
  for (std::size_t id = 0; id < graph.link_count(); ++id) {
    if (id < down.size() && down[id]) continue;
    const LinkEnds& ends = graph.link_ends(id);
    parent[root(ends.a)] = root(ends.b);
  }
  std::vector<std::size_t> number(parent.size(), kNone);
  std::vector<std::size_t> out(parent.size());
  std::size_t groups = 0;
  for (std::size_t n = 0; n < parent.size(); ++n) {
    const std::size_t r = root(n);
    if (number[r] == kNone) number[r] = groups++;
    out[n] = number[r];
  }
  return out;
}

std::vector<NodeId> hosts_cut_off(const TopologyGraph& graph, const std::vector<bool>& down) {
  const std::vector<std::size_t> group = groups_without(graph, down);
  const std::vector<NodeId> hosts = graph.hosts();
  std::vector<std::size_t> count(graph.node_count(), 0);
  for (const NodeId host : hosts) ++count[group[host]];
  std::size_t largest = hosts.empty() ? 0 : group[hosts.front()];
  for (const NodeId host : hosts) {
    if (count[group[host]] > count[largest]) largest = group[host];
  }
  std::vector<NodeId> out;
  for (const NodeId host : hosts) {
    if (group[host] != largest) out.push_back(host);
  }
  return out;
}

}  // namespace dtsim::topology
