#include "sim/topology/graph_statistics.hpp"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace dtsim::topology {
namespace {

using FlowTraits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
// Capacities in whole bits per second: integers keep the max-flow exact (floating-point capacities
// break its flow-conservation invariant by rounding).
using Capacity = std::int64_t;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_capacity_t, Capacity,
                    boost::property<boost::edge_residual_capacity_t, Capacity,
                                    boost::property<boost::edge_reverse_t, FlowTraits::edge_descriptor>>>>;

/// Adds the arc a -> b with `capacity` and its zero-capacity reverse, as the max-flow algorithms need.
void add_arc(FlowGraph& flow, std::size_t a, std::size_t b, Capacity capacity) {
  auto capacity_map = boost::get(boost::edge_capacity, flow);
  auto reverse_map = boost::get(boost::edge_reverse, flow);
  const auto forward = boost::add_edge(a, b, flow).first;
  const auto backward = boost::add_edge(b, a, flow).first;
  capacity_map[forward] = capacity;
  capacity_map[backward] = 0;
  reverse_map[forward] = backward;
  reverse_map[backward] = forward;
}

double rank_order_cut(const TopologyGraph& topology) {
  const auto workers = topology.workers();
  if (workers.size() < 2) return 0.0;
  const std::size_t nodes = topology.node_count();
  FlowGraph flow(nodes + 2);
  const std::size_t source = nodes;
  const std::size_t sink = nodes + 1;
  Capacity total = 0;
  for (std::size_t id = 0; id < topology.link_count(); ++id) {
    const LinkEnds& ends = topology.link_ends(id);
    const auto bits = static_cast<Capacity>(std::llround(topology.link(id).bandwidth.value() * 8.0));
    add_arc(flow, ends.a, ends.b, bits);
    total += bits;
    if (!topology.link(id).one_way) {
      add_arc(flow, ends.b, ends.a, bits);
      total += bits;
    }
  }
  // More than every link together can carry: the source and sink arcs never limit the flow.
  const Capacity unlimited = total + 1;
  for (std::size_t rank = 0; rank < workers.size(); ++rank) {
    if (rank < workers.size() / 2) {
      add_arc(flow, source, workers[rank], unlimited);
    } else {
      add_arc(flow, workers[rank], sink, unlimited);
    }
  }
  return static_cast<double>(boost::push_relabel_max_flow(flow, source, sink)) / 8.0;
}

double leaf_oversubscription(const TopologyGraph& topology) {
  std::vector<bool> port(topology.node_count(), false);
  for (const NodeId node : topology.ports()) port[node] = true;
  const auto inner_switch = [&](NodeId node) { return !port[node] && topology.node(node).kind == NodeKind::Switch; };
  std::vector<double> down(topology.node_count(), 0.0);
  std::vector<double> up(topology.node_count(), 0.0);
  for (std::size_t id = 0; id < topology.link_count(); ++id) {
    const LinkEnds& ends = topology.link_ends(id);
    const double bandwidth = topology.link(id).bandwidth.value();
    if (inner_switch(ends.a) && inner_switch(ends.b)) {
      up[ends.a] += bandwidth;
      up[ends.b] += bandwidth;
    } else if (port[ends.a] && inner_switch(ends.b)) {
      down[ends.b] += bandwidth;
    } else if (port[ends.b] && inner_switch(ends.a)) {
      down[ends.a] += bandwidth;
    }
  }
  double largest = 0.0;
  for (NodeId node = 0; node < topology.node_count(); ++node) {
    if (down[node] > 0.0 && up[node] > 0.0) largest = std::max(largest, down[node] / up[node]);
  }
  return largest;
}

}  // namespace

GraphStatistics compute_statistics(const TopologyGraph& topology) {
  GraphStatistics out;
  out.workers = topology.workers().size();
  out.servers = topology.servers().size();
  out.switches = topology.node_count() - out.workers - out.servers;
  out.links = topology.link_count();
  // Hops follow the directions traffic may take: both ways on a full-duplex link, one way on a one-way link.
  using Arcs = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  Arcs arcs(topology.node_count());
  for (std::size_t id = 0; id < topology.link_count(); ++id) {
    const LinkEnds& ends = topology.link_ends(id);
    boost::add_edge(ends.a, ends.b, arcs);
    if (!topology.link(id).one_way) boost::add_edge(ends.b, ends.a, arcs);
  }

  const std::vector<NodeId> hosts = topology.hosts();
  double total_hops = 0.0;
  std::size_t pairs = 0;
  std::vector<int> distance(topology.node_count());
  for (const NodeId from : hosts) {
    std::fill(distance.begin(), distance.end(), -1);
    distance[from] = 0;
    boost::breadth_first_search(
        arcs, from,
        boost::visitor(boost::make_bfs_visitor(boost::record_distances(distance.data(), boost::on_tree_edge()))));
    for (const NodeId to : hosts) {
      if (to == from) continue;
      if (distance[to] < 0) {
        out.connected = false;
        return out;
      }
      out.diameter_hops = std::max(out.diameter_hops, distance[to]);
      total_hops += distance[to];
      ++pairs;
    }
  }
  out.average_hops = pairs == 0 ? 0.0 : total_hops / static_cast<double>(pairs);
  out.bisection_bandwidth = core::BytesPerSecond(rank_order_cut(topology));
  out.leaf_oversubscription = leaf_oversubscription(topology);
  return out;
}

}  // namespace dtsim::topology
