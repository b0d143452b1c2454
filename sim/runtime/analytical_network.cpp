#include "sim/runtime/analytical_network.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <utility>

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
                                                  int from, int to, double bytes, int rounds,
                                                  topology::LinkTraffic* traffic) {
  // SimGrid runs one actor at a time and switches only at its calls (suspend here): the meeting needs no lock.
  const auto key = std::pair{group, index};
  Meeting& meeting = meetings_[key];
  if (meeting.flows.empty()) {
    meeting.flows.resize(static_cast<std::size_t>(ranks));
    meeting.sent.resize(static_cast<std::size_t>(ranks));
  }
  if (rank < 0 || rank >= ranks || static_cast<int>(meeting.flows.size()) != ranks) {
    throw std::logic_error("a rank entered a phase of a group it is not in");
  }
  meeting.flows[static_cast<std::size_t>(rank)] =
      topology::Flow{hosts_.at(static_cast<std::size_t>(from)), hosts_.at(static_cast<std::size_t>(to)), bytes, 0.0};
  meeting.sent[static_cast<std::size_t>(rank)] = {from, to, bytes * rounds};
  // Subgroups of one phase may run different numbers of rounds only if they are of different sizes; the
  // phase lasts as long as the longest.
  meeting.rounds = std::max(meeting.rounds, rounds);
  if (++meeting.arrived == ranks) {
    const double now = simgrid::s4u::Engine::get_clock();
    meeting.phase = Phase{now, now + meeting.rounds * round_time(meeting.flows)};
    meeting.timed = true;
    if (traffic != nullptr) {
      for (const auto& [sender, receiver, total] : meeting.sent) traffic->add(sender, receiver, total);
    }
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

const std::vector<std::pair<int, int>>& AnalyticalNetwork::pairs_of(int ranks, std::span<const int> host_of_rank,
                                                                    const comm::RingSet& phase) {
  if (!phase.known()) throw std::logic_error("a phase timed for every rank must say where every rank sends");
  const PatternKey key{phase.rings.get(), ranks, phase.shift, host_of_rank.data()};
  Pattern& pattern = patterns_[key];
  if (!pattern.pairs.empty() || ranks <= 1) return pattern.pairs;
  pattern.rings = phase.rings;
  const auto host = [&](int rank) {
    if (rank < 0 || rank >= ranks) throw std::logic_error("a ring names a rank outside its transport");
    return host_of_rank.empty() ? rank : host_of_rank[static_cast<std::size_t>(rank)];
  };
  const auto add_ring = [&](const std::vector<int>& ring) {
    const auto size = static_cast<int>(ring.size());
    for (int i = 0; i < size; ++i) {
      const int to = ring[static_cast<std::size_t>((i + phase.shift % size + size) % size)];
      pattern.pairs.emplace_back(host(ring[static_cast<std::size_t>(i)]), host(to));
    }
  };
  if (phase.all_ranks) {
    std::vector<int> everyone(static_cast<std::size_t>(ranks));
    for (int rank = 0; rank < ranks; ++rank) everyone[static_cast<std::size_t>(rank)] = rank;
    add_ring(everyone);
  } else {
    for (const auto& ring : *phase.rings) add_ring(*ring);
  }
  if (std::cmp_not_equal(pattern.pairs.size(), ranks)) {
    throw std::logic_error("the rings of a phase must hold every rank of the transport once");
  }
  return pattern.pairs;
}

void AnalyticalNetwork::count_for_all(int ranks, std::span<const int> host_of_rank, const comm::RingSet& phase,
                                      double bytes, int rounds) {
  static_cast<void>(pairs_of(ranks, host_of_rank, phase));
  patterns_[PatternKey{phase.rings.get(), ranks, phase.shift, host_of_rank.data()}].unflushed_bytes += bytes * rounds;
}

void AnalyticalNetwork::flush(topology::LinkTraffic& traffic) {
  for (auto& [key, pattern] : patterns_) {
    if (pattern.unflushed_bytes == 0.0) continue;
    if (pattern.crossings.empty()) {
      std::map<std::pair<std::size_t, bool>, double> count;
      for (const auto& [from, to] : pattern.pairs) {
        if (from == to) continue;
        for (const topology::Hop& hop :
             routes_->route(hosts_.at(static_cast<std::size_t>(from)), hosts_.at(static_cast<std::size_t>(to)))) {
          count[{hop.link, hop.forward}] += 1.0;
        }
      }
      for (const auto& [hop, flows] : count) pattern.crossings.emplace_back(topology::Hop{hop.first, hop.second}, flows);
    }
    for (const auto& [hop, flows] : pattern.crossings) traffic.add_on(hop, flows * pattern.unflushed_bytes);
    pattern.unflushed_bytes = 0.0;
  }
}

double AnalyticalNetwork::phase_for_all(int ranks, std::span<const int> host_of_rank, const comm::RingSet& phase,
                                        double bytes, int rounds) {
  const std::vector<std::pair<int, int>>& pairs = pairs_of(ranks, host_of_rank, phase);
  Pattern& pattern = patterns_[PatternKey{phase.rings.get(), ranks, phase.shift, host_of_rank.data()}];
  const auto cached = pattern.round_s.find(bytes);
  if (cached != pattern.round_s.end()) return rounds * cached->second;
  std::vector<topology::Flow> flows;
  flows.reserve(pairs.size());
  for (const auto& [from, to] : pairs) {
    flows.push_back(topology::Flow{hosts_.at(static_cast<std::size_t>(from)), hosts_.at(static_cast<std::size_t>(to)), bytes, 0.0});
  }
  const double round = round_time(flows);
  pattern.round_s.emplace(bytes, round);
  return rounds * round;
}

}  // namespace dtsim::runtime
