#pragma once
// What a failed part of the network takes down: the links of a switch, and the hosts left without a route to
// the rest once links are down. Links are taken both ways here: a host is cut off when no path of working
// links joins it to the others, whichever way they carry traffic.

#include "sim/topology/topology_graph.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::topology {

/// The switch named `name`.
std::optional<NodeId> find_switch(const TopologyGraph& graph, const std::string& name);

/// The links with `node` at one end, by id.
std::vector<std::size_t> links_at(const TopologyGraph& graph, NodeId node);

/// Each node's group of nodes joined by links not `down` (indexed by link id): the groups' numbers, by node.
std::vector<std::size_t> groups_without(const TopologyGraph& graph, const std::vector<bool>& down);

/// The hosts (workers, then servers) outside the group that holds the most of them (the first host's among
/// equals): those that lost every route to the rest; empty while every host reaches every other.
std::vector<NodeId> hosts_cut_off(const TopologyGraph& graph, const std::vector<bool>& down);

}  // namespace dtsim::topology
