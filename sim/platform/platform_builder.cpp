#include "sim/platform/platform_builder.hpp"

#include "sim/platform/graph_zone.hpp"
#include "sim/platform/latency_jitter.hpp"
#include "sim/platform/link_conditions.hpp"

#include <fmt/format.h>
#include <simgrid/kernel/ProfileBuilder.hpp>
#include <simgrid/s4u/NetZone.hpp>

namespace dtsim::platform {
namespace {

/// `scale` turns the trace's factors into the profile's values: 1 for speed profiles (SimGrid scales the
/// host's speed by them), the link's bandwidth for bandwidth profiles (whose values are bytes per second).
simgrid::kernel::profile::Profile* make_profile(const std::string& name, const scenario::Trace& trace, double scale) {
  // SimGrid repeats a profile every `periodicity` seconds; a negative one plays it once.
  return simgrid::kernel::profile::ProfileBuilder::from_string(name, profile_text(trace, scale),
                                                               trace.period_s.value_or(-1.0));
}

void set_power(simgrid::s4u::Host* host, const HostSpec& spec) {
  if (!spec.idle_w || !spec.busy_w) return;
  // Two values: idle, and full load (a host runs one activity at a time here, so one core is all cores).
  host->set_property("wattage_per_state", fmt::format("{:.17g}:{:.17g}", *spec.idle_w, *spec.busy_w));
  host->set_property("wattage_off", fmt::format("{:.17g}", *spec.idle_w));
}

}  // namespace

PlatformSpec uniform_platform(double speed) {
  PlatformSpec spec;
  spec.server.speed = speed;
  return spec;
}

std::string profile_text(const scenario::Trace& trace, double scale) {
  std::string text;
  for (const scenario::Trace::Point& point : trace.points) {
    text += fmt::format("{:.17g} {:.17g}\n", point.at_s, point.factor * scale);
  }
  return text;
}

Platform build_platform(const topology::TopologyGraph& graph, const PlatformSpec& spec) {
  namespace s4u = simgrid::s4u;
  Platform platform;
  // The engine owns and destroys its zones.
  auto* zone = new GraphZone("cluster", graph);
  s4u::NetZone* iface = zone->get_iface();
  platform.routes = &zone->routes();
  platform.zone = zone;

  platform.host_of_node.assign(graph.node_count(), nullptr);
  std::vector<const HostSpec*> host_spec(graph.node_count(), &spec.server);
  for (std::size_t rank = 0; rank < spec.workers.size() && rank < graph.workers().size(); ++rank) {
    host_spec[graph.workers()[rank]] = &spec.workers[rank];
  }
  for (const topology::NodeId node : graph.hosts()) {
    const HostSpec& figures = *host_spec[node];
    s4u::Host* host = iface->create_host(graph.node(node).name, figures.speed);
    if (spec.energy) set_power(host, figures);
    if (!figures.speed_trace.empty()) host->set_speed_profile(make_profile(graph.node(node).name + "/speed", figures.speed_trace, 1.0));
    zone->bind_host(host->get_netpoint(), node);
    platform.host_of_node[node] = host;
  }

  // Background flows start and end at hosts of their own, bound to the link's two ends: the fewest-hop
  // route between two neighbours is the link itself.
  for (std::size_t i = 0; i < spec.background.size(); ++i) {
    const auto& [link, rate] = spec.background[i];
    const topology::LinkEnds ends = graph.link_ends(link);
    s4u::Host* a = iface->create_host(fmt::format("background-{}-a", i), 1e9);
    s4u::Host* b = iface->create_host(fmt::format("background-{}-b", i), 1e9);
    zone->bind_host(a->get_netpoint(), ends.a);
    zone->bind_host(b->get_netpoint(), ends.b);
    platform.background.push_back({a, b, rate});
    if (!graph.link(link).one_way) platform.background.push_back({b, a, rate});
  }

  platform.links.reserve(graph.link_count());
  for (std::size_t id = 0; id < graph.link_count(); ++id) {
    const topology::LinkProperties& link = graph.link(id);
    s4u::SplitDuplexLink* created = iface->create_split_duplex_link(link.name, link.bandwidth.value());
    created->set_latency(link.latency.value());
    if (spec.energy && spec.link_power) {
      const std::string range = fmt::format("{:.17g}:{:.17g}", spec.link_power->first, spec.link_power->second);
      created->get_link_up()->set_property("wattage_range", range);
      created->get_link_down()->set_property("wattage_range", range);
    }
    zone->bind_link(id, created->get_link_up()->get_impl(), created->get_link_down()->get_impl());
    platform.links.push_back(created);
  }
  for (const auto& [id, trace] : spec.link_traces) {
    s4u::SplitDuplexLink* link = platform.links.at(id);
    const double bandwidth = graph.link(id).bandwidth.value();
    link->get_link_up()->set_bandwidth_profile(make_profile(link->get_name() + "/up", trace, bandwidth));
    link->get_link_down()->set_bandwidth_profile(make_profile(link->get_name() + "/down", trace, bandwidth));
  }
  for (const PlatformSpec::LinkLoss& lossy : spec.link_losses) {
    s4u::SplitDuplexLink* link = platform.links.at(lossy.link);
    const topology::LinkProperties& properties = graph.link(lossy.link);
    const double rate =
        bandwidth_under_loss(properties.bandwidth.value(), properties.latency.value(), lossy.loss, lossy.streams);
    link->get_link_up()->set_bandwidth(rate);
    link->get_link_down()->set_bandwidth(rate);
  }
  iface->seal();
  install_latency_jitter(platform, spec);
  return platform;
}

}  // namespace dtsim::platform
