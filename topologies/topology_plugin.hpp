#pragma once
// A topology as a plug-in: one registry entry holds its parameters (the keys of `topology` beside `kind`,
// `link` and `network_model`, each declared with its type, range, default and doc), the builder that reads
// them from the validated section, its own consistency rules, and an example. The scenario format, the JSON
// Schema, the reference and `dtsim list topologies` are generated from the entries.

#include "sim/core/config_view.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/registry.hpp"
#include "sim/core/schema.hpp"
#include "sim/core/units.hpp"
#include "sim/topology/topology_graph.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dtsim::topologies {

/// A full-duplex link: each direction has this bandwidth and latency.
struct LinkSpec {
  core::BytesPerSecond bandwidth;
  core::Seconds latency;
};

/// A validated `{bandwidth, latency}` mapping.
LinkSpec read_link(const core::View& link);
/// The topology's link: the context's resolved one, else the section's `link`. Builders take it from here, so
/// that the link is parsed once and a changed figure reaches every builder.
LinkSpec topology_link(const core::View& section, const struct TopologyContext& context);

/// How the devices inside a node are joined.
enum class IntraNode {
  AllToAll,  ///< a link between every pair of devices
  Switch,    ///< each device linked to one switch of the node (NVSwitch)
  CubeMesh,  ///< 8 devices: two fully linked quads, device i linked to i + 4 (DGX-1's hybrid cube-mesh)
};

/// `count` multi-device nodes of one shape (a group of `cluster.nodes`).
struct NodeShape {
  int count = 1;
  int devices = 1;
  LinkSpec intra_link;
  IntraNode intra = IntraNode::AllToAll;
  /// Network adapters of a node: with one NIC port per node (`nic: per_node`) the port carries all of them,
  /// `nics` times the fabric link's bandwidth.
  int nics = 1;
};

struct TopologyPlugin;
using TopologyRegistry = core::Registry<TopologyPlugin>;

/// The nodes (hosts and switches) and links of a topology's graph, counted before it is built.
struct TopologySize {
  std::int64_t nodes = 0;
  std::int64_t links = 0;
};

/// The most links a topology is built with. Each takes some hundred bytes in the graph and as much again, a
/// direction each, in the simulation's platform: a full mesh of 65,536 workers (2^31 links) would exhaust the
/// memory while being built, long before its first message.
inline constexpr std::int64_t kMaxTopologyLinks = 4'000'000;

/// What a topology is built for, besides its own section.
struct TopologyContext {
  int workers = 0;
  std::uint64_t seed = 0;  ///< for topologies drawn at random
  int servers = 1;         ///< servers a star holds: one per parameter shard under a parameter-server architecture
  /// Whether the architecture has parameter servers: a topology without servers of its own then gets
  /// `servers` of them on its host ports, after the workers.
  bool attach_servers = false;
  /// Of `workers`, how many host ports are left for attached servers: a builder sees them as workers, and
  /// a check phrases counts with host_count().
  int attached = 0;
  std::vector<NodeShape> nodes;  ///< `cluster.nodes`; empty without
  /// Per host port in rank order, the NICs it carries (a node's one port under `nic: per_node`); ports past its
  /// end carry one. The hierarchy widens its port links to that many `link`s itself; a fabric with an
  /// `oversubscription` reads it to size a leaf's uplinks from the capacity of its ports.
  std::vector<int> port_nics;
  /// Whether `cluster.nodes` is written (its groups may still be in error, and missing from `nodes`).
  bool nodes_declared = false;
  /// The registry the topology came from, for topologies built of others (a hierarchical fabric).
  const TopologyRegistry* registry = nullptr;
  /// `topology.link` as the scenario resolved it (a calibration may have changed it since it was read);
  /// unset: read from the section (topology_link()).
  std::optional<LinkSpec> link;

  /// The hosts a builder places, for messages: "14 workers" or "14 workers and 2 servers".
  [[nodiscard]] std::string host_count() const;
};

struct TopologyPlugin {
  /// Its keys of the `topology` section; they apply only when this topology is chosen.
  std::vector<core::SchemaNode> parameters;
  /// Builds the graph from the validated `topology` section (defaults filled in, `link` among its keys).
  std::function<topology::TopologyGraph(const core::View& section, const TopologyContext&)> make;
  /// Reports what passes each key's own declaration but not the cluster or the other keys (a torus whose
  /// size is not the worker count), at the value's position; empty when there is nothing to check.
  std::function<void(const core::View& section, const TopologyContext&, core::DiagnosticSink&)> check;
  /// The graph's size for a section that passes `check`, counted in a few arithmetic steps, not built: a topology
  /// past kMaxTopologyLinks is refused before it fills the memory. Empty: not counted (a plug-in's own).
  std::function<TopologySize(const core::View& section, const TopologyContext&)> size;
  /// A `topology` mapping without `link`, and the `cluster` mapping it fits: the reference shows them and
  /// the tests read them.
  std::string example;
  std::string example_cluster = "{workers: 8, device: {name: v100}}";
  /// Whether it places the workers on `cluster.nodes` (the others refuse multi-device nodes).
  bool places_nodes = false;
  /// Whether it places parameter servers itself (a star, a custom graph, the fabric of a hierarchical one);
  /// the others get them on host ports after the workers.
  bool places_servers = false;
};

/// A `{bandwidth, latency, sharing}` mapping declared under `key`.
core::SchemaNode link_schema(std::string key, std::string description);

/// Keys that several topologies read, declared once so that each declares them alike: switches' fan-out,
/// a fat tree's oversubscription, the servers' link.
core::SchemaNode arity_parameter();
core::SchemaNode oversubscription_parameter();
core::SchemaNode radix_parameter();
core::SchemaNode server_link_parameter();

/// Uplinks of a leaf switch of `ports` host ports oversubscribed o times: ceil(ports / o), at least one.
int uplink_count(int ports, double oversubscription);

/// A leaf's capacity toward its hosts, in fabric links: the NICs of ports [first, first + used) of `port_nics`,
/// counted for all `ports` of the leaf (a partly filled leaf's free ports as wide as its used ones on average).
double leaf_port_links(std::span<const int> port_nics, int first, int used, int ports);

/// The width of each of a leaf's `uplinks`, in fabric links, that gives its ports (`port_links` links) over its
/// uplinks the ratio o exactly: port_links / (o x uplinks). 1 for single-NIC ports where o divides the ports;
/// narrower where a whole number of uplinks cannot express o (arity 2 at o = 4: one uplink of half a link).
double uplink_width(double port_links, double oversubscription, int uplinks);

/// Adds every built-in topology, each from its own file (the list is in topologies/CMakeLists.txt).
void register_builtin_topologies(TopologyRegistry& registry);

/// `kind`'s graph for `section` (the validated `topology` mapping), with attached servers where the context
/// asks for them and the topology does not place its own.
topology::TopologyGraph build_topology(const TopologyRegistry& registry, const std::string& kind,
                                       const core::View& section, const TopologyContext& context);

/// The size of the graph build_topology() gives for the same arguments, counted without building it; zero when
/// `kind` does not count its size.
TopologySize topology_size(const TopologyRegistry& registry, const std::string& kind, const core::View& section,
                           const TopologyContext& context);

/// Runs `kind`'s own checks on `section`, counting the host ports attached servers take, then refuses a graph
/// of more than kMaxTopologyLinks links.
void check_topology(const TopologyRegistry& registry, const std::string& kind, const core::View& section,
                    const TopologyContext& context, core::DiagnosticSink& sink);

/// `graph` with its last `servers` workers made parameter servers "server-0", "server-1", ...: the same
/// nodes, ids and links, the links renamed after their ends.
topology::TopologyGraph with_servers_on_last_hosts(const topology::TopologyGraph& graph, int servers);

}  // namespace dtsim::topologies
