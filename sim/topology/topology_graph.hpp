#pragma once
// The one graph type every topology builder produces: hosts (workers, servers) and switches joined by
// full-duplex links, stored as a Boost.Graph adjacency list.

#include "sim/core/units.hpp"

#include <boost/graph/adjacency_list.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dtsim::topology {

enum class NodeKind { Worker, Server, Switch };

struct NodeProperties {
  std::string name;
  NodeKind kind = NodeKind::Switch;
};

/// A full-duplex link: each direction carries `bandwidth` with `latency`, independently of the other. A
/// one-way link carries traffic from its first end to its second only (a unidirectional ring).
struct LinkProperties {
  std::string name;
  core::BytesPerSecond bandwidth;
  core::Seconds latency;
  std::size_t id = 0;  ///< index for TopologyGraph::link(), stable for the graph's life
  bool one_way = false;
  /// What part of the topology the link is ("ring", "leaf", "spine", "intra_node", "fabric/ring", ...):
  /// traffic is reported per class.
  std::string link_class;
};

/// What a graph edge carries: the id of its link, whose properties TopologyGraph::link() holds.
struct EdgeProperties {
  std::size_t link = 0;
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, NodeProperties, EdgeProperties>;
using NodeId = Graph::vertex_descriptor;

/// One link with its two ends; traversing it from `a` to `b` is its forward direction.
struct LinkEnds {
  NodeId a = 0;
  NodeId b = 0;
};

class TopologyGraph {
 public:
  /// Workers get ranks in the order they are added; so do servers. A worker's `machine` says which
  /// multi-device node it sits in (hierarchical topologies); by default each worker is a machine of its own.
  /// Its `site` is the datacenter it sits in (the `sites` topology); 0 elsewhere.
  NodeId add_worker(std::string name, std::optional<int> machine = std::nullopt, int site = 0);
  NodeId add_server(std::string name);
  NodeId add_switch(std::string name);
  /// Adds a link of class `link_class` between two distinct nodes; its name is "<a>--<b>" ("<a>->-<b>" when
  /// `one_way`, which lets traffic go from a to b only).
  std::size_t add_link(NodeId a, NodeId b, core::BytesPerSecond bandwidth, core::Seconds latency,
                       std::string link_class, bool one_way = false);
  /// Marks `node` as a port of the network: where hosts' traffic enters it (a multi-device node's NIC, or its
  /// switch). Graph statistics take the switches linked to ports as leaves. Unmarked, the hosts are the ports.
  void mark_port(NodeId node);

  [[nodiscard]] const Graph& graph() const { return graph_; }
  [[nodiscard]] const NodeProperties& node(NodeId id) const { return graph_[id]; }
  [[nodiscard]] std::size_t node_count() const { return boost::num_vertices(graph_); }
  /// Worker nodes by rank.
  [[nodiscard]] std::span<const NodeId> workers() const { return workers_; }
  /// The machine of each worker, by rank: ranks on one machine share its intra-node links.
  [[nodiscard]] std::span<const int> worker_machines() const { return machines_; }
  /// The site of each worker, by rank.
  [[nodiscard]] std::span<const int> worker_sites() const { return sites_; }
  /// Declares a datacenter (the `sites` topology), its index the next one; workers name it by that index.
  int add_site(std::string name) {
    site_names_.push_back(std::move(name));
    return static_cast<int>(site_names_.size()) - 1;
  }
  /// The declared sites' names, by index; empty where the topology has none.
  [[nodiscard]] std::span<const std::string> site_names() const { return site_names_; }
  /// Server nodes by index.
  [[nodiscard]] std::span<const NodeId> servers() const { return servers_; }
  /// Workers then servers: every node that runs code.
  [[nodiscard]] std::vector<NodeId> hosts() const;
  /// The marked ports in the order marked, else the hosts.
  [[nodiscard]] std::vector<NodeId> ports() const;
  [[nodiscard]] std::size_t link_count() const { return ends_.size(); }
  [[nodiscard]] const LinkProperties& link(std::size_t id) const { return links_.at(id); }
  [[nodiscard]] const LinkEnds& link_ends(std::size_t id) const { return ends_.at(id); }
  /// Whether traffic may cross link `id` leaving node `from` (one of its ends).
  [[nodiscard]] bool can_leave(std::size_t id, NodeId from) const { return !links_.at(id).one_way || ends_.at(id).a == from; }
  [[nodiscard]] bool has_one_way_links() const { return one_way_links_ > 0; }
  /// The same network with `workers` (some of this graph's workers, in their new rank order) as its only
  /// workers, each on its machine: one job's view of a cluster that others share. Servers are kept.
  [[nodiscard]] TopologyGraph with_workers(std::span<const NodeId> workers) const;

 private:
  NodeId add_node(std::string name, NodeKind kind);

  Graph graph_;
  std::vector<NodeId> workers_;
  std::vector<int> machines_;
  std::vector<int> sites_;
  std::vector<std::string> site_names_;
  std::vector<NodeId> servers_;
  std::vector<NodeId> ports_;
  // Kept beside the graph, indexed by link id, rather than reached through edge descriptors, which point
  // into the graph's storage and would dangle once the graph is copied.
  std::vector<LinkEnds> ends_;
  std::vector<LinkProperties> links_;
  std::size_t one_way_links_ = 0;
};

/// The ranks of the workers linked directly to worker `rank`, ascending.
std::vector<int> worker_neighbours(const TopologyGraph& graph, int rank);

}  // namespace dtsim::topology
