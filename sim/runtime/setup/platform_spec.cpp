#include "sim/runtime/setup/platform_spec.hpp"

#include "sim/compute/device_cost_model.hpp"

#include <algorithm>
#include <stdexcept>

namespace dtsim::runtime {
namespace {

platform::HostSpec host_spec(const scenario::DeviceProfile& device, double slowdown, bool energy) {
  platform::HostSpec spec;
  spec.speed = compute::sustained_rate(device).value() / slowdown;
  if (energy && device.idle_power && device.busy_power) {
    spec.idle_w = device.idle_power->value();
    spec.busy_w = device.busy_power->value();
  }
  return spec;
}

}  // namespace

std::optional<std::size_t> find_link(const topology::TopologyGraph& graph, const std::string& name) {
  for (std::size_t id = 0; id < graph.link_count(); ++id) {
    if (graph.link(id).name == name) return id;
  }
  return std::nullopt;
}

platform::PlatformSpec platform_spec(const scenario::Scenario& scenario, const topology::TopologyGraph& graph) {
  const scenario::ClusterSpec& cluster = scenario.cluster;
  const bool energy = scenario.energy.enabled;
  platform::PlatformSpec spec;
  spec.energy = energy;
  for (int rank = 0; rank < cluster.workers; ++rank) {
    const auto r = static_cast<std::size_t>(rank);
    spec.workers.push_back(host_spec(cluster.device_of(rank), r < cluster.slowdown.size() ? cluster.slowdown[r] : 1.0, energy));
    if (r < cluster.speed_traces.size()) spec.workers.back().speed_trace = cluster.speed_traces[r];
  }
  spec.server = host_spec(cluster.server_device, 1.0, energy);
  if (scenario.energy.link_busy_power) {
    spec.link_power = std::pair{scenario.energy.link_idle_power.value_or(core::Watts(0.0)).value(),
                                scenario.energy.link_busy_power->value()};
  } else if (scenario.energy.link_idle_power) {
    spec.link_power = std::pair{scenario.energy.link_idle_power->value(), scenario.energy.link_idle_power->value()};
  }
  for (const scenario::BackgroundTraffic& rule : scenario.background_traffic) {
    for (const auto& name : rule.links) {
      const std::optional<std::size_t> id = find_link(graph, name.value);
      if (!id) throw std::logic_error("background traffic names a link the topology does not have: " + name.value);
      spec.background.emplace_back(*id, rule.bytes_per_s);
    }
  }
  for (const scenario::LinkTrace& rule : scenario.link_traces) {
    for (const auto& name : rule.links) {
      const std::optional<std::size_t> id = find_link(graph, name.value);
      // check_scenario has reported unknown names as input errors.
      if (!id) throw std::logic_error("a link trace names a link the topology does not have: " + name.value);
      spec.link_traces.emplace_back(*id, rule.trace);
    }
  }
  spec.jitter_seed = scenario.seed;
  for (const scenario::LinkCondition& rule : scenario.link_conditions) {
    for (std::size_t id = 0; id < graph.link_count(); ++id) {
      if (!rule.chooses(graph.link(id).name, graph.link(id).link_class)) continue;
      if (rule.loss > 0.0) spec.link_losses.push_back({.link = id, .loss = rule.loss, .streams = rule.streams});
      if (rule.jitter_s > 0.0) {
        spec.link_jitters.push_back({.link = id, .mean_s = rule.jitter_s, .distribution = rule.jitter_distribution});
      }
    }
  }
  return spec;
}

}  // namespace dtsim::runtime
