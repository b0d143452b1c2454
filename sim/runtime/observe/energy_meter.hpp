#pragma once
// Reads SimGrid's energy plugins during and after an energy run: joules so far (for evaluations, and so
// the energy to reach a target loss), and at the end each host's split into compute, communication and
// waiting, plus the nodes' static power and the links'.

#include "sim/metrics/run_record.hpp"
#include "sim/platform/platform_builder.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/topology_graph.hpp"

#include <functional>
#include <vector>

namespace dtsim::runtime {

/// What a device's time and SimGrid's plugin say of it by `now_s`.
struct DeviceDraw {
  double plugin_j = 0.0;         ///< the plugin's joules: busy power while the host executes, idle otherwise
  double now_s = 0.0;
  double compute_s = 0.0;        ///< the host's lanes' executions, added
  double communication_s = 0.0;  ///< its messages moving
  double idle_w = 0.0;
  double busy_w = 0.0;
};

/// Where a device's time went, for its energy.
struct DeviceTime {
  /// Executing. The lanes' compute time, unless the plugin charged less than that at busy power: then lanes
  /// computed at once (a pipeline's sends beside its passes), and the busy time is read back from the plugin,
  /// each moment once.
  double busy_s = 0.0;
  /// Moving messages and not computing. A device computing while its messages move draws its busy power (the
  /// collective's kernels share its busy multiprocessors), so that time is busy_s's. The run keeps totals, not
  /// each host's spans: where busy and communication time together exceed the time run, the excess ran at
  /// once, and no more overlap than that is counted.
  double moving_s = 0.0;
};

[[nodiscard]] DeviceTime device_time(const DeviceDraw& draw);

class EnergyMeter {
 public:
  /// Hosts in RunRecord order: workers by rank, then servers.
  /// `record` is the run's, read as it fills: each host's communication time so far adds what the device draws
  /// while messages move above its idle power (SimGrid's host plugin knows only idle and busy).
  EnergyMeter(const scenario::Scenario& scenario, const topology::TopologyGraph& graph, const platform::Platform& platform,
              const metrics::RunRecord& record);

  /// Joules drawn from the start to now by devices, nodes (static power) and metered links.
  [[nodiscard]] double joules_now() const;
  /// At the end of the run: each host's split, and the totals.
  void finish(metrics::RunRecord& record) const;
  /// Some workers stand for others (see mirrored_ranks.hpp): worker r's device draws what the host of
  /// `stand_in(r)` does.
  void read_workers_from(const std::function<int(int)>& stand_in, int workers);

 private:
  [[nodiscard]] double links_joules() const;
  /// Host `host`'s time by now, from its activity so far.
  [[nodiscard]] DeviceTime time_of(std::size_t host, const metrics::HostActivity& activity) const;
  /// Watts a host's device draws above idle while its messages move.
  [[nodiscard]] double moving_extra_w(std::size_t host) const;

  /// Where each host's joules are read: its own SimGrid host, or its stand-in's for mirrored workers.
  std::vector<simgrid::s4u::Host*> hosts_;
  std::vector<scenario::DeviceProfile> devices_;  ///< of each host
  const metrics::RunRecord* record_;
  std::vector<std::size_t> activity_of_;  ///< where each host's activity is recorded while the run goes on
  std::vector<simgrid::s4u::Link*> metered_links_;
  double static_w_ = 0.0;  ///< all nodes together
};

/// Nodes that draw static power: the nodes of cluster.nodes that hold a worker (each worker without
/// cluster.nodes), and the servers.
int powered_nodes(const scenario::ClusterSpec& cluster, int servers);

}  // namespace dtsim::runtime
