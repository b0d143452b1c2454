#include "sim/runtime/energy_meter.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Engine.hpp>

#include <cmath>
#include <utility>

namespace dtsim::runtime {

int powered_nodes(const scenario::ClusterSpec& cluster, int servers) {
  if (cluster.nodes.empty()) return cluster.workers + servers;
  int nodes = 0;
  int left = cluster.workers;
  for (const scenario::NodeGroup& group : cluster.nodes) {
    for (int n = 0; n < group.count && left > 0; ++n) {
      ++nodes;
      left -= group.devices;
    }
  }
  return nodes + servers;
}

EnergyMeter::EnergyMeter(const scenario::Scenario& scenario, const topology::TopologyGraph& graph,
                         const platform::Platform& platform) {
  const auto workers = graph.workers();
  for (std::size_t rank = 0; rank < workers.size(); ++rank) {
    hosts_.push_back(platform.host_of_node.at(workers[rank]));
    devices_.push_back(scenario.cluster.device_of(static_cast<int>(rank)));
  }
  for (const topology::NodeId node : graph.servers()) {
    hosts_.push_back(platform.host_of_node.at(node));
    devices_.push_back(scenario.cluster.server_device);
  }
  if (scenario.energy.link_idle_power || scenario.energy.link_busy_power) {
    for (simgrid::s4u::SplitDuplexLink* link : platform.links) {
      metered_links_.push_back(link->get_link_up());
      metered_links_.push_back(link->get_link_down());
    }
  }
  if (scenario.energy.node_static_power) {
    static_w_ = scenario.energy.node_static_power->value() *
                powered_nodes(scenario.cluster, static_cast<int>(graph.servers().size()));
  }
}

void EnergyMeter::read_workers_from(const std::function<int(int)>& stand_in, int workers) {
  for (int host = 0; host < workers && std::cmp_less(host, hosts_.size()); ++host) {
    hosts_[static_cast<std::size_t>(host)] = hosts_.at(static_cast<std::size_t>(stand_in(host)));
  }
}

double EnergyMeter::links_joules() const {
  double joules = 0.0;
  for (simgrid::s4u::Link* link : metered_links_) joules += sg_link_get_consumed_energy(link);
  return joules;
}

double EnergyMeter::joules_now() const {
  double joules = static_w_ * simgrid::s4u::Engine::get_clock() + links_joules();
  for (simgrid::s4u::Host* host : hosts_) joules += sg_host_get_consumed_energy(host);
  return joules;
}

void EnergyMeter::finish(metrics::RunRecord& record) const {
  metrics::EnergyTotals totals;
  for (std::size_t i = 0; i < hosts_.size() && i < record.hosts.size(); ++i) {
    metrics::HostActivity& host = record.hosts[i];
    const double drawn = sg_host_get_consumed_energy(hosts_[i]);
    // While it executes a host is fully loaded (busy power); otherwise idle: the plugin's total splits by
    // the time the runtime saw the host compute and move its messages.
    host.compute_j = host.compute_s * devices_[i].busy_power.value_or(core::Watts(0.0)).value();
    host.communication_j = host.communication_s * devices_[i].idle_power.value_or(core::Watts(0.0)).value();
    host.waiting_j = drawn - host.compute_j - host.communication_j;
    // A host that never waited leaves rounding residue, not joules.
    if (std::abs(host.waiting_j) < 1e-9 * drawn) host.waiting_j = 0.0;
    totals.devices_j += drawn;
    totals.compute_j += host.compute_j;
    totals.communication_j += host.communication_j;
    totals.waiting_j += host.waiting_j;
  }
  totals.static_j = static_w_ * simgrid::s4u::Engine::get_clock();
  totals.links_j = links_joules();
  record.energy = totals;
}

}  // namespace dtsim::runtime
