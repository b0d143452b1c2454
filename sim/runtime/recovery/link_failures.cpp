#include "sim/runtime/recovery/link_failures.hpp"

#include "sim/runtime/setup/platform_spec.hpp"
#include "sim/topology/reachability.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <stdexcept>

namespace dtsim::runtime {

LinkFailures::LinkFailures(const scenario::FailureSpec& spec, const topology::TopologyGraph& graph,
                           platform::GraphZone& zone, RunObserver& observer)
    : graph_(&graph), zone_(&zone), observer_(&observer) {
  for (const scenario::LinkFailure& failure : spec.link_events) {
    // check_scenario has reported unknown names as input errors.
    std::vector<std::size_t> links;
    if (failure.whole_switch) {
      const std::optional<topology::NodeId> node = topology::find_switch(graph, failure.link.value);
      if (!node) throw std::logic_error("a failure names a switch the topology does not have: " + failure.link.value);
      links = topology::links_at(graph, *node);
    } else if (const std::optional<std::size_t> link = find_link(graph, failure.link.value)) {
      links.push_back(*link);
    } else {
      throw std::logic_error("a failure names a link the topology does not have: " + failure.link.value);
    }
    for (const std::size_t link : links) {
      changes_.push_back({failure.at_s, link, true});
      if (failure.repair_s) changes_.push_back({failure.at_s + *failure.repair_s, link, false});
    }
  }
  std::stable_sort(changes_.begin(), changes_.end(), [](const Change& a, const Change& b) { return a.at_s < b.at_s; });
}

void LinkFailures::operator()() {
  namespace s4u = simgrid::s4u;
  for (std::size_t c = 0; c < changes_.size(); ++c) {
    const Change& change = changes_[c];
    s4u::this_actor::sleep_until(change.at_s);
    zone_->set_link_down(change.link, change.down);
    const std::string& name = graph_->link(change.link).name;
    observer_->on_link_change(name, s4u::Engine::get_clock(), change.down);
    // A switch's links go down together: the routes are judged once all of them are.
    const bool more_now = c + 1 < changes_.size() && changes_[c + 1].at_s == change.at_s;
    if (!change.down || more_now) continue;
    if (const auto cut = zone_->routes().partition()) {
      metrics::Partition partition{s4u::Engine::get_clock(), name, graph_->node(cut->first).name,
                                   graph_->node(cut->second).name, {}};
      for (const topology::NodeId host : topology::hosts_cut_off(*graph_, zone_->routes().down())) partition.cut_off.push_back(graph_->node(host).name);
      observer_->on_partition(partition);
      s4u::Actor::kill_all();
      return;
    }
  }
}

}  // namespace dtsim::runtime
