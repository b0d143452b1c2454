#include "sim/runtime/network/analytical_network.hpp"

#include "sim/comm/collective_algorithm.hpp"
#include "sim/topology/uncontended_flows.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <deque>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace dtsim::runtime {

AnalyticalNetwork::AnalyticalNetwork(const topology::TopologyGraph& graph, const topology::RoutingTable& routes,
                                     FlowSharing sharing)
    : graph_(&graph), routes_(&routes), sharing_(sharing), hosts_(graph.hosts()) {}

std::vector<double> AnalyticalNetwork::completion_times(std::span<const topology::Flow> flows) const {
  return sharing_ == FlowSharing::MaxMin ? topology::fluid_completion_times(*graph_, *routes_, flows)
                                         : topology::uncontended_completion_times(*graph_, *routes_, flows);
}

const std::vector<double>& AnalyticalNetwork::flow_times(const std::vector<topology::Flow>& flows) {
  std::vector<std::tuple<topology::NodeId, topology::NodeId, double>> key;
  key.reserve(flows.size());
  for (const topology::Flow& flow : flows) key.emplace_back(flow.from, flow.to, flow.bytes);
  if (const auto cached = flow_times_.find(key); cached != flow_times_.end()) return cached->second;
  // A flow from a host to itself (a rank whose peer is itself, in a group of one) crosses no link.
  std::vector<topology::Flow> moving;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    if (flows[i].from == flows[i].to) continue;
    moving.push_back(flows[i]);
    index.push_back(i);
  }
  const std::vector<double> done = completion_times(moving);
  std::vector<double> times(flows.size(), 0.0);
  for (std::size_t f = 0; f < index.size(); ++f) times[index[f]] = done[f];
  return flow_times_.emplace(std::move(key), std::move(times)).first->second;
}

double AnalyticalNetwork::round_time(const std::vector<topology::Flow>& flows) {
  const std::vector<double>& times = flow_times(flows);
  return times.empty() ? 0.0 : *std::max_element(times.begin(), times.end());
}

AnalyticalNetwork::Phase AnalyticalNetwork::enter(const std::string& group, int ranks, std::uint64_t index, int rank,
                                                  std::span<const Send> sends, int rounds, topology::LinkTraffic* traffic) {
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
  for (const Send& send : sends) {
    meeting.flows[static_cast<std::size_t>(rank)].push_back(
        topology::Flow{hosts_.at(static_cast<std::size_t>(send.from)), hosts_.at(static_cast<std::size_t>(send.to)), send.bytes, 0.0, {}});
    meeting.sent[static_cast<std::size_t>(rank)].emplace_back(send.from, send.to, send.bytes * rounds);
  }
  // Subgroups of one phase may run different numbers of rounds only if they are of different sizes; the
  // phase lasts as long as the longest.
  meeting.rounds = std::max(meeting.rounds, rounds);
  return meet(group, ranks, index, [&] {
    const double now = simgrid::s4u::Engine::get_clock();
    std::vector<topology::Flow> flows;
    for (const auto& of_rank : meeting.flows) flows.insert(flows.end(), of_rank.begin(), of_rank.end());
    Phase phase{now, now + meeting.rounds * round_time(flows), nullptr};
    if (links_ != nullptr) {
      DirectionLoads moved;
      for (const auto& of_rank : meeting.sent) {
        for (const auto& [sender, receiver, total] : of_rank) add_flow(moved, sender, receiver, total);
      }
      phase.shared = share(phase.end, meeting.rounds * critical_latency(flows), moved);
    }
    if (traffic != nullptr) {
      for (const auto& of_rank : meeting.sent) {
        for (const auto& [sender, receiver, total] : of_rank) {
          for_each_copy(sender, receiver, [&](int from, int to) { traffic->add(from, to, total); });
        }
      }
    }
    return phase;
  });
}

AnalyticalNetwork::Phase AnalyticalNetwork::meet(const std::string& name, int entrants, std::uint64_t index,
                                                 const std::function<Phase()>& time) {
  const auto key = std::pair{name, index};
  Meeting& meeting = meetings_[key];
  if (++meeting.arrived == entrants) {
    meeting.phase = time();
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

AnalyticalNetwork::Phase AnalyticalNetwork::enter_for_group(const std::string& meeting, int groups, std::uint64_t index,
                                                            int group, int ranks, std::span<const int> host_of_rank,
                                                            const comm::RingSet& phase, double bytes, int rounds) {
  std::vector<Send> sends;
  for (const auto& [from, to] : pairs_of(ranks, host_of_rank, phase)) sends.push_back(Send{from, to, bytes});
  return enter(meeting, groups, index, group, sends, rounds, nullptr);
}

AnalyticalNetwork::Phase AnalyticalNetwork::enter_for_groups(const std::string& meeting, int entrants,
                                                             std::uint64_t index, int entrant, int ranks,
                                                             std::span<const std::vector<int>> groups,
                                                             const comm::RingSet& phase, double bytes, int rounds) {
  std::vector<Send> sends;
  for (const std::vector<int>& hosts : groups) {
    for (const auto& [from, to] : pairs_of(ranks, hosts, phase)) sends.push_back(Send{from, to, bytes});
  }
  return enter(meeting, entrants, index, entrant, sends, rounds, nullptr);
}

AnalyticalNetwork::Phase AnalyticalNetwork::start_for_groups(int ranks, std::span<const std::vector<int>> groups,
                                                             const comm::RingSet& phase, double bytes, int rounds) {
  if (links_ != nullptr) throw std::logic_error("a rank stood for several groups among other jobs");
  const double now = simgrid::s4u::Engine::get_clock();
  double longest = 0.0;
  for (const std::vector<int>& hosts : groups)
    longest = std::max(longest, phase_for_all(ranks, hosts, phase, bytes, rounds));
  return Phase{now, now + longest, nullptr};
}

AnalyticalNetwork::Phase AnalyticalNetwork::steps_for_groups(std::span<const std::vector<int>> groups,
                                                             const std::vector<std::vector<comm::Step>>& steps,
                                                             double bytes_per_element, topology::LinkTraffic* traffic) {
  if (links_ != nullptr) throw std::logic_error("a rank stood for several groups among other jobs");
  const double now = simgrid::s4u::Engine::get_clock();
  double longest = 0.0;
  for (const std::vector<int>& hosts : groups) {
    if (hosts.size() != steps.size()) throw std::logic_error("a group stood for has another size than its steps");
    const StepsTiming& timing = steps_timing(hosts, steps, bytes_per_element);
    longest = std::max(longest, timing.span);
    if (traffic != nullptr) {
      for (const auto& [hop, bytes] : timing.bytes_on) traffic->add_on(hop, bytes);
    }
  }
  return Phase{now, now + longest, nullptr};
}

const AnalyticalNetwork::StepsTiming& AnalyticalNetwork::steps_timing(const std::vector<int>& hosts,
                                                                      const std::vector<std::vector<comm::Step>>& steps,
                                                                      double bytes_per_element) {
  // Keyed by everything the timing reads: the hosts, each rank's steps and the bytes of an element.
  std::vector<double> key(hosts.begin(), hosts.end());
  key.push_back(bytes_per_element);
  for (const std::vector<comm::Step>& of_rank : steps) {
    key.push_back(-1.0);
    for (const comm::Step& step : of_rank) {
      key.push_back(static_cast<double>(step.to.size()));
      key.insert(key.end(), step.to.begin(), step.to.end());
      key.push_back(static_cast<double>(step.from.size()));
      key.insert(key.end(), step.from.begin(), step.from.end());
      key.push_back(static_cast<double>(step.elements));
      key.push_back(static_cast<double>(step.sizes.size()));
      key.insert(key.end(), step.sizes.begin(), step.sizes.end());
    }
  }
  if (const auto found = steps_timings_.find(key); found != steps_timings_.end()) return found->second;
  // Timed from 0, every rank entering at once: the same collective takes as long whenever it starts.
  StepsMeeting meeting;
  meeting.hosts = hosts;
  meeting.arrivals.assign(hosts.size(), 0.0);
  meeting.steps = steps;
  time_steps(meeting, 0.0, bytes_per_element, nullptr, false);
  StepsTiming timing;
  timing.span = *std::max_element(meeting.ends.begin(), meeting.ends.end());
  // Every message's bytes on every link of its route, summed by link direction (whole numbers: exact in any order).
  std::map<std::pair<std::size_t, bool>, double> on;
  for (std::size_t r = 0; r < steps.size(); ++r) {
    for (const comm::Step& step : steps[r]) {
      for (std::size_t i = 0; i < step.to.size(); ++i) {
        const int to = hosts.at(static_cast<std::size_t>(step.to[i]));
        if (to == hosts[r]) continue;
        const double bytes = static_cast<double>(step.elements_to(i)) * bytes_per_element;
        for (const topology::Hop& hop :
             routes_->route(hosts_.at(static_cast<std::size_t>(hosts[r])), hosts_.at(static_cast<std::size_t>(to)))) {
          on[{hop.link, hop.forward}] += bytes;
        }
      }
    }
  }
  for (const auto& [hop, bytes] : on) timing.bytes_on.emplace_back(topology::Hop{hop.first, hop.second}, bytes);
  return steps_timings_.emplace(std::move(key), std::move(timing)).first->second;
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
  const std::size_t rings = phase.parallel ? phase.rings->size() : 1;
  if (pattern.pairs.size() != static_cast<std::size_t>(ranks) * rings) {
    throw std::logic_error(phase.parallel ? "each parallel ring of a phase must hold every rank of the transport once"
                                          : "the rings of a phase must hold every rank of the transport once");
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
  const double round = round_time(flows_of(pairs, bytes));
  pattern.round_s.emplace(bytes, round);
  return rounds * round;
}

std::vector<topology::Flow> AnalyticalNetwork::flows_of(const std::vector<std::pair<int, int>>& pairs, double bytes) const {
  std::vector<topology::Flow> flows;
  flows.reserve(pairs.size());
  for (const auto& [from, to] : pairs) {
    flows.push_back(topology::Flow{hosts_.at(static_cast<std::size_t>(from)), hosts_.at(static_cast<std::size_t>(to)), bytes, 0.0, {}});
  }
  return flows;
}

AnalyticalNetwork::Phase AnalyticalNetwork::start_for_all(int ranks, std::span<const int> host_of_rank,
                                                          const comm::RingSet& phase, double bytes, int rounds) {
  const double now = simgrid::s4u::Engine::get_clock();
  Phase out{now, now + phase_for_all(ranks, host_of_rank, phase, bytes, rounds), nullptr};
  if (links_ == nullptr || out.end <= now) return out;
  const std::vector<std::pair<int, int>>& pairs = pairs_of(ranks, host_of_rank, phase);
  DirectionLoads moved;
  for (const auto& [from, to] : pairs) add_flow(moved, from, to, bytes * rounds);
  out.shared = share(out.end, rounds * critical_latency(flows_of(pairs, bytes)), moved);
  return out;
}

std::shared_ptr<LinkSharing::Transfer> AnalyticalNetwork::share(double alone_end, double latency_s,
                                                                const DirectionLoads& loads) {
  return links_ == nullptr ? nullptr : links_->begin(job_, alone_end, latency_s, loads);
}

void AnalyticalNetwork::add_flow(DirectionLoads& out, int from, int to, double bytes) const {
  for_each_copy(from, to, [&](int sender, int receiver) {
    if (sender == receiver) return;
    for (const topology::Hop& hop :
         routes_->route(hosts_.at(static_cast<std::size_t>(sender)), hosts_.at(static_cast<std::size_t>(receiver)))) {
      DirectionLoad& load = out[direction_of(hop)];
      load.bytes += bytes;
      load.flows += 1.0;
    }
  });
}

double AnalyticalNetwork::critical_latency(const std::vector<topology::Flow>& flows) {
  const std::vector<double>& times = flow_times(flows);
  if (times.empty()) return 0.0;
  const auto last = static_cast<std::size_t>(std::max_element(times.begin(), times.end()) - times.begin());
  return routes_->latency(flows[last].from, flows[last].to);
}

AnalyticalNetwork::Phase AnalyticalNetwork::finished(Phase phase) {
  if (phase.shared != nullptr) {
    phase.end = links_->wait(phase.shared, phase.end);
  } else {
    simgrid::s4u::this_actor::sleep_until(phase.end);
  }
  return phase;
}

std::shared_ptr<AnalyticalNetwork::Message> AnalyticalNetwork::match(const std::string& channel, bool sending) {
  Channel& queue = channels_[channel];
  std::deque<std::shared_ptr<Message>>& own = sending ? queue.sends : queue.receives;
  std::deque<std::shared_ptr<Message>>& other = sending ? queue.receives : queue.sends;
  std::shared_ptr<Message> message;
  if (other.empty()) {
    message = std::make_shared<Message>();
    own.push_back(message);
  } else {
    message = std::move(other.front());
    other.pop_front();
  }
  if (queue.sends.empty() && queue.receives.empty()) channels_.erase(channel);
  return message;
}

std::shared_ptr<AnalyticalNetwork::Message> AnalyticalNetwork::post_send(const std::string& channel, int from, int to,
                                                                         comm::Buffer data, topology::LinkTraffic* traffic,
                                                                         std::string joint, int joint_size) {
  std::shared_ptr<Message> message = match(channel, true);
  message->from = from;
  message->to = to;
  message->bytes = comm::wire_bytes(data);
  message->data = std::move(data);
  message->joint = std::move(joint);
  message->joint_size = joint_size;
  message->sent_at = simgrid::s4u::Engine::get_clock();
  if (traffic != nullptr) for_each_copy(from, to, [&](int sender, int receiver) { traffic->add(sender, receiver, message->bytes); });
  if (message->received_at >= 0.0) ready(message);
  return message;
}

std::shared_ptr<AnalyticalNetwork::Message> AnalyticalNetwork::post_recv(const std::string& channel) {
  std::shared_ptr<Message> message = match(channel, false);
  message->received_at = simgrid::s4u::Engine::get_clock();
  if (message->sent_at >= 0.0) ready(message);
  return message;
}

void AnalyticalNetwork::ready(const std::shared_ptr<Message>& message) {
  if (message->joint.empty() || message->joint_size <= 1) {
    start_moving({message});
    return;
  }
  std::vector<std::shared_ptr<Message>>& joint = joints_[message->joint];
  joint.push_back(message);
  if (std::cmp_less(joint.size(), message->joint_size)) return;
  const std::vector<std::shared_ptr<Message>> together = std::move(joint);
  joints_.erase(message->joint);
  start_moving(together);
}

void AnalyticalNetwork::start_moving(const std::vector<std::shared_ptr<Message>>& messages) {
  const double now = simgrid::s4u::Engine::get_clock();
  // Each message's flows: its own, and every replica's copy of it.
  std::vector<topology::Flow> flows;
  std::vector<std::size_t> first(messages.size() + 1, 0);
  for (std::size_t i = 0; i < messages.size(); ++i) {
    for_each_copy(messages[i]->from, messages[i]->to, [&](int from, int to) {
      flows.push_back(topology::Flow{hosts_.at(static_cast<std::size_t>(from)), hosts_.at(static_cast<std::size_t>(to)),
                                     messages[i]->bytes, 0.0, {}});
    });
    first[i + 1] = flows.size();
  }
  const std::vector<double>& times = flow_times(flows);
  std::vector<Phase> moved(messages.size());
  for (std::size_t i = 0; i < messages.size(); ++i) {
    moved[i] = Phase{now, now + *std::max_element(times.begin() + static_cast<std::ptrdiff_t>(first[i]),
                                                  times.begin() + static_cast<std::ptrdiff_t>(first[i + 1])), nullptr};
  }
  if (links_ != nullptr && !flows.empty()) {
    DirectionLoads bytes;
    for (const std::shared_ptr<Message>& message : messages) add_flow(bytes, message->from, message->to, message->bytes);
    const double alone_end = std::max_element(moved.begin(), moved.end(), [](const Phase& a, const Phase& b) {
                               return a.end < b.end;
                             })->end;
    const double latency = critical_latency(flows);
    const std::shared_ptr<LinkSharing::Transfer> shared = share(alone_end, latency, bytes);
    for (Phase& phase : moved) phase.shared = shared;
  }
  for (std::size_t i = 0; i < messages.size(); ++i) {
    Message& message = *messages[i];
    message.moved = moved[i];
    for (const simgrid::s4u::ActorPtr& actor : message.waiting) actor->resume();
    message.waiting.clear();
  }
}

AnalyticalNetwork::Phase AnalyticalNetwork::wait(Message& message) {
  if (message.moved.end < 0.0) {
    message.waiting.push_back(simgrid::s4u::Actor::self());
    while (message.moved.end < 0.0) simgrid::s4u::this_actor::suspend();
  }
  return finished(message.moved);
}

const std::string& AnalyticalNetwork::host_name(int host) const {
  return graph_->node(hosts_.at(static_cast<std::size_t>(host))).name;
}

AnalyticalNetwork::Phase AnalyticalNetwork::enter_steps(const std::string& group, int ranks, std::uint64_t index,
                                                        int rank, int host, std::span<const comm::Step> steps,
                                                        double bytes_per_element, topology::LinkTraffic* traffic) {
  const auto key = std::pair{group, index};
  StepsMeeting& meeting = steps_meetings_[key];
  if (meeting.steps.empty()) {
    meeting.steps.resize(static_cast<std::size_t>(ranks));
    meeting.hosts.assign(static_cast<std::size_t>(ranks), -1);
    meeting.arrivals.assign(static_cast<std::size_t>(ranks), 0.0);
  }
  if (rank < 0 || rank >= ranks || std::cmp_not_equal(meeting.steps.size(), ranks)) {
    throw std::logic_error("a rank entered a phase of a group it is not in");
  }
  meeting.steps[static_cast<std::size_t>(rank)].assign(steps.begin(), steps.end());
  meeting.hosts[static_cast<std::size_t>(rank)] = host;
  meeting.arrivals[static_cast<std::size_t>(rank)] = simgrid::s4u::Engine::get_clock();
  if (++meeting.arrived == ranks) {
    time_steps(meeting, simgrid::s4u::Engine::get_clock(), bytes_per_element, traffic);
    for (const simgrid::s4u::ActorPtr& actor : meeting.waiting) actor->resume();
    meeting.waiting.clear();
  } else {
    meeting.waiting.push_back(simgrid::s4u::Actor::self());
    while (!meeting.timed) simgrid::s4u::this_actor::suspend();
  }
  const Phase phase{meeting.arrivals[static_cast<std::size_t>(rank)], meeting.ends[static_cast<std::size_t>(rank)],
                    meeting.shared};
  if (--meeting.arrived == 0) steps_meetings_.erase(key);
  return phase;
}

bool AnalyticalNetwork::time_every_to_every(StepsMeeting& meeting, double now, double bytes_per_element,
                                            topology::LinkTraffic* traffic, bool copies) {
  const std::size_t ranks = meeting.steps.size();
  // The links' loads count each message once: not where it has replicas' copies.
  if (std::cmp_less_equal(ranks, kFluidEveryToEveryRanks) || (copies && !replicas_.empty())) return false;
  const std::size_t count = meeting.steps.front().size();
  std::vector<double> step_bytes(count, 0.0);
  std::vector<bool> seen(ranks);
  const auto everyone_else = [&](std::size_t rank, const std::vector<int>& peers) {
    if (peers.size() != ranks - 1) return false;
    seen.assign(ranks, false);
    seen[rank] = true;
    for (const int peer : peers) {
      if (peer < 0 || std::cmp_greater_equal(peer, ranks) || seen[static_cast<std::size_t>(peer)]) return false;
      seen[static_cast<std::size_t>(peer)] = true;
    }
    return true;
  };
  std::vector<topology::NodeId> hosts(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    const std::vector<comm::Step>& steps = meeting.steps[r];
    if (steps.size() != count) return false;
    for (std::size_t k = 0; k < count; ++k) {
      if (!everyone_else(r, steps[k].to) || !everyone_else(r, steps[k].from)) return false;
      // Uneven pieces are the fluid model's.
      if (!steps[k].sizes.empty()) return false;
      const double bytes = static_cast<double>(steps[k].elements) * bytes_per_element;
      if (r > 0 && bytes != step_bytes[k]) return false;
      step_bytes[k] = bytes;
    }
    hosts[r] = hosts_.at(static_cast<std::size_t>(meeting.hosts[r]));
  }
  std::unique_ptr<topology::EveryToEveryLoads>& loads = every_to_every_[hosts];
  if (loads == nullptr) loads = std::make_unique<topology::EveryToEveryLoads>(*graph_, *routes_, hosts);
  const std::vector<double> ends = loads->ends(meeting.arrivals, step_bytes);
  meeting.ends.resize(ranks);
  for (std::size_t r = 0; r < ranks; ++r) meeting.ends[r] = std::max(now, ends[r]);
  const double bytes = std::accumulate(step_bytes.begin(), step_bytes.end(), 0.0);
  if (traffic != nullptr) {
    for (const auto& [hop, messages] : loads->crossings()) traffic->add_on(hop, messages * bytes);
  }
  if (links_ != nullptr) {
    // Timed from the links' loads, which have no latency of their own: all of its time is taken as moving bytes.
    DirectionLoads moved;
    for (const auto& [hop, messages] : loads->crossings()) moved[direction_of(hop)] = {messages * bytes, messages};
    meeting.shared = share(*std::max_element(meeting.ends.begin(), meeting.ends.end()), 0.0, moved);
  }
  meeting.timed = true;
  return true;
}

namespace {

/// A steps meeting's messages: each a flow from its sender's host to its receiver's, posted no earlier than
/// the later of the two ranks' arrivals; who sends and receives it at which of their steps; and each rank's
/// steps as the messages it takes part in (sent or received), to make one step wait for the last. Messages
/// between two ranks meet their receives in order, as on one mailbox.
struct StepMessages {
  std::vector<topology::Flow> flows;
  std::vector<std::vector<std::vector<std::size_t>>> by_step;  ///< by rank, by step: message ids
  std::vector<int> sender;
  std::vector<std::size_t> sent_step;
  std::vector<int> receiver;
  std::vector<std::size_t> received_step;
};

StepMessages step_messages(const std::vector<std::vector<comm::Step>>& steps_of, const std::vector<int>& host_of,
                           const std::vector<double>& arrivals, const std::vector<topology::NodeId>& nodes,
                           double bytes_per_element) {
  const auto ranks = static_cast<int>(steps_of.size());
  StepMessages out;
  out.by_step.resize(steps_of.size());
  std::map<std::pair<int, int>, std::deque<std::size_t>> unmatched;
  const auto check_rank = [&](int peer) {
    if (peer < 0 || peer >= ranks) throw std::logic_error("a step names a rank outside its group");
  };
  const auto at = [](auto& v, int i) -> auto& { return v[static_cast<std::size_t>(i)]; };
  for (int r = 0; r < ranks; ++r) {
    const std::vector<comm::Step>& steps = at(steps_of, r);
    at(out.by_step, r).resize(steps.size());
    for (std::size_t k = 0; k < steps.size(); ++k) {
      for (std::size_t i = 0; i < steps[k].to.size(); ++i) {
        const int to = steps[k].to[i];
        check_rank(to);
        const std::size_t id = out.flows.size();
        out.flows.push_back(topology::Flow{nodes.at(static_cast<std::size_t>(at(host_of, r))),
                                           nodes.at(static_cast<std::size_t>(at(host_of, to))),
                                           static_cast<double>(steps[k].elements_to(i)) * bytes_per_element,
                                           std::max(at(arrivals, r), at(arrivals, to)), {}});
        out.sender.push_back(r);
        out.sent_step.push_back(k);
        at(out.by_step, r)[k].push_back(id);
        unmatched[{r, to}].push_back(id);
      }
    }
  }
  out.received_step.assign(out.flows.size(), 0);
  out.receiver.assign(out.flows.size(), -1);
  for (int r = 0; r < ranks; ++r) {
    const std::vector<comm::Step>& steps = at(steps_of, r);
    for (std::size_t k = 0; k < steps.size(); ++k) {
      for (const int from : steps[k].from) {
        check_rank(from);
        std::deque<std::size_t>& queue = unmatched[{from, r}];
        if (queue.empty()) throw std::logic_error("a step receives a message no step sends");
        const std::size_t id = queue.front();
        queue.pop_front();
        out.received_step[id] = k;
        out.receiver[id] = r;
        at(out.by_step, r)[k].push_back(id);
      }
    }
  }
  for (const auto& [pair, queue] : unmatched) {
    if (!queue.empty()) throw std::logic_error("a step sends a message no step receives");
  }
  return out;
}

/// The latencies paid one after another by the chain of messages that ends last: the last to arrive, the one of
/// those it waited for that arrived last, and so on.
template <class Latency>
double chain_latency(const std::vector<topology::Flow>& flows, const std::vector<double>& done, Latency latency_of) {
  if (flows.empty()) return 0.0;
  auto last = static_cast<std::size_t>(std::max_element(done.begin(), done.end()) - done.begin());
  double latency = latency_of(flows[last]);
  // Each message waits only for messages posted before it, so the chain ends.
  while (!flows[last].after.empty()) {
    last = *std::max_element(flows[last].after.begin(), flows[last].after.end(),
                             [&](std::size_t a, std::size_t b) { return done[a] < done[b]; });
    latency += latency_of(flows[last]);
  }
  return latency;
}

}  // namespace

void AnalyticalNetwork::time_steps(StepsMeeting& meeting, double now, double bytes_per_element,
                                   topology::LinkTraffic* traffic, bool copies) {
  if (time_every_to_every(meeting, now, bytes_per_element, traffic, copies)) return;
  const auto ranks = static_cast<int>(meeting.steps.size());
  StepMessages messages = step_messages(meeting.steps, meeting.hosts, meeting.arrivals, hosts_, bytes_per_element);
  std::vector<topology::Flow>& flows = messages.flows;
  const auto& by_step = messages.by_step;
  // A message is posted when its sender's previous step and its receiver's previous step are done.
  const auto previous = [&](int r, std::size_t k) -> const std::vector<std::size_t>* {
    const auto& of_rank = by_step[static_cast<std::size_t>(r)];
    while (k-- > 0) {
      if (!of_rank[k].empty()) return &of_rank[k];
    }
    return nullptr;
  };
  for (std::size_t id = 0; id < flows.size(); ++id) {
    for (const auto* before :
         {previous(messages.sender[id], messages.sent_step[id]), previous(messages.receiver[id], messages.received_step[id])}) {
      if (before != nullptr) flows[id].after.insert(flows[id].after.end(), before->begin(), before->end());
    }
  }
  const std::vector<double> done = completion_times(flows);
  // A rank whose messages were all done before the last arrival ends then: its time is only known now.
  meeting.ends.assign(static_cast<std::size_t>(ranks), now);
  for (int r = 0; r < ranks; ++r) {
    double& end = meeting.ends[static_cast<std::size_t>(r)];
    for (const auto& ids : by_step[static_cast<std::size_t>(r)]) {
      for (const std::size_t id : ids) end = std::max(end, done[id]);
    }
  }
  if (traffic != nullptr) {
    for (std::size_t id = 0; id < flows.size(); ++id) {
      for_each_copy(meeting.hosts[static_cast<std::size_t>(messages.sender[id])],
                    meeting.hosts[static_cast<std::size_t>(messages.receiver[id])],
                    [&](int from, int to) { traffic->add(from, to, flows[id].bytes); });
    }
  }
  if (links_ != nullptr && !flows.empty()) {
    DirectionLoads moved;
    for (std::size_t id = 0; id < flows.size(); ++id) {
      add_flow(moved, meeting.hosts[static_cast<std::size_t>(messages.sender[id])],
                      meeting.hosts[static_cast<std::size_t>(messages.receiver[id])], flows[id].bytes);
    }
    // Its steps follow one another: a step's messages are the ones moving at once.
    std::size_t steps = 1;
    for (const auto& of_rank : by_step) steps = std::max(steps, of_rank.size());
    for (auto& [direction, load] : moved) load.flows /= static_cast<double>(steps);
    meeting.shared = share(*std::max_element(meeting.ends.begin(), meeting.ends.end()),
                           chain_latency(flows, done, [this](const topology::Flow& flow) {
                             return routes_->latency(flow.from, flow.to);
                           }),
                           moved);
  }
  meeting.timed = true;
}

}  // namespace dtsim::runtime
