#include "sim/runtime/analytical_network.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace dtsim::runtime {

AnalyticalNetwork::AnalyticalNetwork(const topology::TopologyGraph& graph, const topology::RoutingTable& routes)
    : graph_(&graph), routes_(&routes), hosts_(graph.hosts()) {}

double AnalyticalNetwork::round_time(const std::vector<topology::Flow>& flows) {
  // A rank whose peer is itself (a group of one) sends nothing over the network.
  std::vector<std::tuple<topology::NodeId, topology::NodeId, double>> key;
  std::vector<topology::Flow> moving;
  for (const topology::Flow& flow : flows) {
    if (flow.from == flow.to) continue;
    key.emplace_back(flow.from, flow.to, flow.bytes);
    moving.push_back(flow);
  }
  const auto cached = rounds_.find(key);
  if (cached != rounds_.end()) return cached->second;
  const std::vector<double> done = topology::fluid_completion_times(*graph_, *routes_, moving);
  const double time = done.empty() ? 0.0 : *std::max_element(done.begin(), done.end());
  rounds_.emplace(std::move(key), time);
  return time;
}

AnalyticalNetwork::Phase AnalyticalNetwork::enter(const std::string& group, int ranks, std::uint64_t index, int rank,
                                                  int from, int to, double bytes, int rounds) {
  // SimGrid runs one actor at a time and switches only at its calls (suspend here): the meeting needs no lock.
  const auto key = std::pair{group, index};
  Meeting& meeting = meetings_[key];
  if (meeting.flows.empty()) meeting.flows.resize(static_cast<std::size_t>(ranks));
  if (rank < 0 || rank >= ranks || static_cast<int>(meeting.flows.size()) != ranks) {
    throw std::logic_error("a rank entered a phase of a group it is not in");
  }
  meeting.flows[static_cast<std::size_t>(rank)] =
      topology::Flow{hosts_.at(static_cast<std::size_t>(from)), hosts_.at(static_cast<std::size_t>(to)), bytes, 0.0};
  // Subgroups of one phase may run different numbers of rounds only if they are of different sizes; the
  // phase lasts as long as the longest.
  meeting.rounds = std::max(meeting.rounds, rounds);
  if (++meeting.arrived == ranks) {
    const double now = simgrid::s4u::Engine::get_clock();
    meeting.phase = Phase{now, now + meeting.rounds * round_time(meeting.flows)};
    meeting.timed = true;
    for (const simgrid::s4u::ActorPtr& actor : meeting.waiting) actor->resume();
    meeting.waiting.clear();
  } else {
    meeting.waiting.push_back(simgrid::s4u::Actor::self());
    while (!meeting.timed) simgrid::s4u::this_actor::suspend();
  }
  const Phase phase = meeting.phase;
  // The last rank to read the phase forgets the meeting.
  if (--meeting.arrived == 0) meetings_.erase(key);
  return phase;
}

}  // namespace dtsim::runtime
