#include "sim/platform/graph_zone.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>

#include <fmt/format.h>

#include <stdexcept>

namespace dtsim::platform {

GraphZone::GraphZone(const std::string& name, const topology::TopologyGraph& graph)
    : NetZoneImpl(name),
      graph_(graph),
      routes_(graph_),
      forward_(graph_.link_count(), nullptr),
      backward_(graph_.link_count(), nullptr) {}

void GraphZone::bind_host(const simgrid::kernel::routing::NetPoint* netpoint, topology::NodeId node) {
  node_of_[netpoint] = node;
}

void GraphZone::bind_link(std::size_t link, simgrid::kernel::resource::StandardLinkImpl* forward,
                          simgrid::kernel::resource::StandardLinkImpl* backward) {
  forward_.at(link) = forward;
  backward_.at(link) = backward;
}

void GraphZone::get_local_route(const simgrid::kernel::routing::NetPoint* src,
                                const simgrid::kernel::routing::NetPoint* dst, simgrid::kernel::routing::Route* into,
                                double* latency) {
  const auto from = node_of_.find(src);
  const auto to = node_of_.find(dst);
  if (from == node_of_.end() || to == node_of_.end()) {
    throw std::logic_error(fmt::format("no route from {} to {}: not hosts of this zone", src->get_name(), dst->get_name()));
  }
  if (from->second == to->second) return;  // a host talking to itself uses no link
  for (const topology::Hop& hop : routes_.route(from->second, to->second)) {
    into->link_list_.push_back(hop.forward ? forward_[hop.link] : backward_[hop.link]);
    if (latency != nullptr) *latency += graph_.link(hop.link).latency.value();
  }
}

}  // namespace dtsim::platform
