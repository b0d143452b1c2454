#include "sim/runtime/observe/energy_meter.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
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
                         const platform::Platform& platform, const metrics::RunRecord& record)
    : record_(&record) {
  const auto workers = graph.workers();
  for (std::size_t rank = 0; rank < workers.size(); ++rank) {
    hosts_.push_back(platform.host_of_node.at(workers[rank]));
    devices_.push_back(scenario.cluster.device_of(static_cast<int>(rank)));
  }
  for (const topology::NodeId node : graph.servers()) {
    hosts_.push_back(platform.host_of_node.at(node));
    devices_.push_back(scenario.cluster.server_device);
  }
  for (std::size_t host = 0; host < hosts_.size(); ++host) activity_of_.push_back(host);
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
    activity_of_[static_cast<std::size_t>(host)] = static_cast<std::size_t>(stand_in(host));
  }
}

double EnergyMeter::moving_extra_w(std::size_t host) const {
  const scenario::DeviceProfile& device = devices_[host];
  return device.communication_draw().value_or(core::Watts(0.0)).value() -
         device.idle_power.value_or(core::Watts(0.0)).value();
}

DeviceTime device_time(const DeviceDraw& draw) {
  const auto split = [&](double busy_s) {
    // Rounding in a host that never waited is not overlap.
    const bool apart = busy_s + draw.communication_s <= draw.now_s * (1.0 + 1e-9);
    return DeviceTime{busy_s, apart ? draw.communication_s : std::max(0.0, draw.now_s - busy_s)};
  };
  const DeviceTime counted = split(draw.compute_s);
  const double waiting_j = draw.plugin_j - draw.busy_w * counted.busy_s - draw.idle_w * counted.moving_s;
  // The plugin charged no less than the lanes' compute at busy power: the time as counted.
  if (waiting_j >= -1e-9 * draw.plugin_j || draw.busy_w <= draw.idle_w) return counted;
  // It charged less: lanes computed at once, each counting the same moments. The busy time is what it charged.
  return split(std::clamp((draw.plugin_j - draw.idle_w * draw.now_s) / (draw.busy_w - draw.idle_w), 0.0, draw.now_s));
}

DeviceTime EnergyMeter::time_of(std::size_t host, const metrics::HostActivity& activity) const {
  return device_time({.plugin_j = sg_host_get_consumed_energy(hosts_[host]),
                      .now_s = simgrid::s4u::Engine::get_clock(),
                      .compute_s = activity.compute_s,
                      .communication_s = activity.communication_s,
                      .idle_w = devices_[host].idle_power.value_or(core::Watts(0.0)).value(),
                      .busy_w = devices_[host].busy_power.value_or(core::Watts(0.0)).value()});
}

double EnergyMeter::links_joules() const {
  double joules = 0.0;
  for (simgrid::s4u::Link* link : metered_links_) joules += sg_link_get_consumed_energy(link);
  return joules;
}

double EnergyMeter::joules_now() const {
  double joules = static_w_ * simgrid::s4u::Engine::get_clock() + links_joules();
  for (std::size_t i = 0; i < hosts_.size(); ++i) {
    joules += sg_host_get_consumed_energy(hosts_[i]);
    if (activity_of_[i] < record_->hosts.size()) {
      joules += time_of(i, record_->hosts[activity_of_[i]]).moving_s * moving_extra_w(i);
    }
  }
  return joules;
}

void EnergyMeter::finish(metrics::RunRecord& record) const {
  metrics::EnergyTotals totals;
  for (std::size_t i = 0; i < hosts_.size() && i < record.hosts.size(); ++i) {
    metrics::HostActivity& host = record.hosts[i];
    // SimGrid's plugin counts busy power while a host executes and idle power otherwise; while its messages
    // move and it does not compute, the device draws its communication power, the difference added here.
    const double idle_w = devices_[i].idle_power.value_or(core::Watts(0.0)).value();
    const double plugin = sg_host_get_consumed_energy(hosts_[i]);
    const DeviceTime time = time_of(i, host);
    const double drawn = plugin + time.moving_s * moving_extra_w(i);
    host.compute_j = time.busy_s * devices_[i].busy_power.value_or(core::Watts(0.0)).value();
    host.communication_j = time.moving_s * (idle_w + moving_extra_w(i));
    host.waiting_j = plugin - host.compute_j - time.moving_s * idle_w;
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
