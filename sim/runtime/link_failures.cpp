#include "sim/runtime/link_failures.hpp"

#include "sim/runtime/platform_spec.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <stdexcept>

namespace dtsim::runtime {

LinkFailures::LinkFailures(const scenario::FailureSpec& spec, const topology::TopologyGraph& graph,
                           platform::GraphZone& zone, RunObserver& observer)
    : graph_(&graph), zone_(&zone), observer_(&observer) {
  for (const scenario::LinkFailure& failure : spec.link_events) {
    const std::optional<std::size_t> link = find_link(graph, failure.link.value);
    // check_scenario has reported unknown names as input errors.
    if (!link) throw std::logic_error("a failure names a link the topology does not have: " + failure.link.value);
    changes_.push_back({failure.at_s, *link, true});
    if (failure.repair_s) changes_.push_back({failure.at_s + *failure.repair_s, *link, false});
  }
  std::stable_sort(changes_.begin(), changes_.end(), [](const Change& a, const Change& b) { return a.at_s < b.at_s; });
}

void LinkFailures::operator()() {
  namespace s4u = simgrid::s4u;
  for (const Change& change : changes_) {
    s4u::this_actor::sleep_until(change.at_s);
    zone_->set_link_down(change.link, change.down);
    const std::string& name = graph_->link(change.link).name;
    observer_->on_link_change(name, s4u::Engine::get_clock(), change.down);
    if (!change.down) continue;
    if (const auto cut = zone_->routes().partition()) {
      observer_->on_partition(
          metrics::Partition{s4u::Engine::get_clock(), name, graph_->node(cut->first).name, graph_->node(cut->second).name});
      s4u::Actor::kill_all();
      return;
    }
  }
}

}  // namespace dtsim::runtime
