#pragma once
// The SimGrid engine of one simulation, with its network model and platform. SimGrid allows one engine
// per process: create one EngineSession per process.

#include "sim/platform/platform_builder.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_graph.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <memory>
#include <string>

namespace dtsim::runtime {

/// Above this many nodes (hosts and switches), actors' stacks have no guard pages (engine_session.cpp says why).
inline constexpr std::size_t kGuardedHostLimit = 8'192;

class EngineSession {
 public:
  /// With spec.energy, SimGrid's energy plugins meter the hosts (and links with power figures).
  EngineSession(const topology::TopologyGraph& graph, scenario::NetworkModel network_model,
                const platform::PlatformSpec& spec);

  [[nodiscard]] simgrid::s4u::Engine& engine() { return *engine_; }
  [[nodiscard]] const platform::Platform& platform() const { return platform_; }
  [[nodiscard]] simgrid::s4u::Host* host(topology::NodeId node) const { return platform_.host_of_node.at(node); }
  [[nodiscard]] const topology::RoutingTable& routes() const { return *platform_.routes; }
  /// Runs every actor to completion; returns the simulated time at the end, in seconds. Throws std::logic_error
  /// when the run deadlocks (actors left waiting for one another).
  double run();

 private:
  /// Has run() throw when the engine reports a deadlock.
  void watch_for_deadlock();

  /// The deadlock's description; empty: none.
  std::shared_ptr<std::string> deadlock_ = std::make_shared<std::string>();
  std::unique_ptr<simgrid::s4u::Engine> engine_;
  platform::Platform platform_;
};

/// "3.32.0": the version of the SimGrid library linked in.
std::string simgrid_version();

}  // namespace dtsim::runtime
