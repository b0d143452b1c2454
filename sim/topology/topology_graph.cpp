#include "sim/topology/topology_graph.hpp"

#include <fmt/format.h>

#include <boost/range/iterator_range.hpp>

#include <algorithm>
#include <stdexcept>

namespace dtsim::topology {

NodeId TopologyGraph::add_node(std::string name, NodeKind kind) {
  return boost::add_vertex(NodeProperties{std::move(name), kind}, graph_);
}

NodeId TopologyGraph::add_worker(std::string name, std::optional<int> machine, int site) {
  const NodeId id = add_node(std::move(name), NodeKind::Worker);
  machines_.push_back(machine.value_or(static_cast<int>(workers_.size())));
  sites_.push_back(site);
  workers_.push_back(id);
  return id;
}

NodeId TopologyGraph::add_server(std::string name) {
  const NodeId id = add_node(std::move(name), NodeKind::Server);
  servers_.push_back(id);
  return id;
}

NodeId TopologyGraph::add_switch(std::string name) { return add_node(std::move(name), NodeKind::Switch); }

std::size_t TopologyGraph::add_link(NodeId a, NodeId b, core::BytesPerSecond bandwidth, core::Seconds latency,
                                   std::string link_class, bool one_way) {
  if (a == b) throw std::logic_error(fmt::format("link from {} to itself", graph_[a].name));
  if (bandwidth.value() <= 0.0) throw std::logic_error(fmt::format("link {}--{} has no bandwidth", graph_[a].name, graph_[b].name));
  const std::size_t id = ends_.size();
  boost::add_edge(a, b, EdgeProperties{id}, graph_);
  std::string name = one_way ? fmt::format("{}->-{}", graph_[a].name, graph_[b].name)
                             : fmt::format("{}--{}", graph_[a].name, graph_[b].name);
  links_.push_back(LinkProperties{std::move(name), bandwidth, latency, id, one_way, std::move(link_class)});
  one_way_links_ += one_way ? 1 : 0;
  ends_.push_back(LinkEnds{a, b});
  return id;
}

void TopologyGraph::mark_port(NodeId node) {
  if (node >= node_count()) throw std::out_of_range("a port that is not a node of the graph");
  ports_.push_back(node);
}

std::vector<int> worker_neighbours(const TopologyGraph& graph, int rank) {
  std::vector<int> rank_of(graph.node_count(), -1);
  for (std::size_t r = 0; r < graph.workers().size(); ++r) rank_of[graph.workers()[r]] = static_cast<int>(r);
  std::vector<int> out;
  const NodeId self = graph.workers()[static_cast<std::size_t>(rank)];
  for (const auto edge : boost::make_iterator_range(boost::out_edges(self, graph.graph()))) {
    const int neighbour = rank_of[boost::target(edge, graph.graph())];
    if (neighbour >= 0 && neighbour != rank) out.push_back(neighbour);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

TopologyGraph TopologyGraph::with_workers(std::span<const NodeId> workers) const {
  std::vector<int> machine_of(node_count(), -1);
  std::vector<int> site_of(node_count(), 0);
  for (std::size_t rank = 0; rank < workers_.size(); ++rank) {
    machine_of[workers_[rank]] = machines_[rank];
    site_of[workers_[rank]] = sites_[rank];
  }
  TopologyGraph out = *this;
  out.workers_.clear();
  out.machines_.clear();
  out.sites_.clear();
  for (const NodeId node : workers) {
    if (node >= node_count() || machine_of[node] < 0) throw std::out_of_range("a job's worker is not a worker of the cluster");
    out.workers_.push_back(node);
    out.machines_.push_back(machine_of[node]);
    out.sites_.push_back(site_of[node]);
  }
  return out;
}

std::vector<NodeId> TopologyGraph::hosts() const {
  std::vector<NodeId> out(workers_.begin(), workers_.end());
  out.insert(out.end(), servers_.begin(), servers_.end());
  return out;
}

std::vector<NodeId> TopologyGraph::ports() const { return ports_.empty() ? hosts() : ports_; }


}  // namespace dtsim::topology
