#pragma once
// Turns a topology graph into a SimGrid platform: one host per worker or server (running at its device's
// sustained rate, with its power figures and speed trace), one split-duplex link per graph link (with its
// bandwidth trace), and routes from the graph's routing table, computed as SimGrid asks for them (GraphZone).

#include "sim/scenario/scenario.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_graph.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace dtsim::platform {

/// One host's figures.
struct HostSpec {
  double speed = 1e12;  ///< FLOP/s sustained
  /// Power with nothing to execute and at full load, in W; unset without energy accounting.
  std::optional<double> idle_w;
  std::optional<double> busy_w;
  scenario::Trace speed_trace;  ///< fraction of `speed` over time; empty: constant
};

/// What the platform's hosts and links are, beyond the graph.
struct PlatformSpec {
  std::vector<HostSpec> workers;  ///< by rank
  HostSpec server;                ///< every server
  /// Each link direction's power, idle and at full bandwidth, in W; unset: links are not metered.
  std::optional<std::pair<double, double>> link_power;
  /// Graph link id -> the trace of its bandwidth (both directions).
  std::vector<std::pair<std::size_t, scenario::Trace>> link_traces;
  /// Packet loss on a link, both directions (scenario::LinkCondition).
  struct LinkLoss {
    std::size_t link = 0;  ///< graph link id
    double loss = 0.0;
    int streams = 1;
  };
  std::vector<LinkLoss> link_losses;
  /// Jitter on a link, both directions (scenario::LinkCondition): each message's extra delay there is drawn from
  /// `distribution` with mean `mean_s`, from the stream "links/jitter" of `jitter_seed`.
  struct LinkJitter {
    std::size_t link = 0;  ///< graph link id
    double mean_s = 0.0;
    scenario::JitterDistribution distribution = scenario::JitterDistribution::Exponential;
  };
  std::vector<LinkJitter> link_jitters;
  std::uint64_t jitter_seed = 0;
  /// Graph link id -> background traffic on it, bytes per second each way.
  std::vector<std::pair<std::size_t, double>> background;
  /// Whether SimGrid's host (and link, with link_power) energy plugins meter the run.
  bool energy = false;
};

/// Every host at `speed`, nothing metered: for runs that time communication only.
PlatformSpec uniform_platform(double speed);

/// A steady flow that is not the job's: from a host standing at one end of a link to one at the other.
struct BackgroundFlow {
  simgrid::s4u::Host* from = nullptr;
  simgrid::s4u::Host* to = nullptr;
  double bytes_per_s = 0.0;
};

struct Platform {
  /// Indexed by topology node id; nullptr for switches (routes name their links directly).
  std::vector<simgrid::s4u::Host*> host_of_node;
  /// Indexed by topology link id.
  std::vector<simgrid::s4u::SplitDuplexLink*> links;
  /// The routes SimGrid uses; owned by the platform's zone, which lives as long as the engine.
  const topology::RoutingTable* routes = nullptr;
  /// Background traffic, between hosts that exist only for it (not the graph's, not metered).
  std::vector<BackgroundFlow> background;
  /// The zone, which routes around failed links (owned by the engine).
  class GraphZone* zone = nullptr;
};

/// Builds the platform in one zone. Call once per engine, after configure_network_model() (and, with
/// spec.energy, after the energy plugins are initialised). Throws std::runtime_error when the graph is not
/// connected.
Platform build_platform(const topology::TopologyGraph& graph, const PlatformSpec& spec);

/// The SimGrid profile text of a trace: "time value" lines, each factor times `scale`.
std::string profile_text(const scenario::Trace& trace, double scale);

}  // namespace dtsim::platform
