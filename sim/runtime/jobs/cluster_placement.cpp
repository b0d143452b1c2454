#include "sim/runtime/jobs/cluster_placement.hpp"

#include "sim/core/diagnostic.hpp"

#include <fmt/format.h>

#include <boost/range/iterator_range.hpp>

#include <algorithm>
#include <deque>
#include <map>
#include <random>

namespace dtsim::runtime {
namespace {

/// Whether switch `node` serves machine `machine` alone: every worker beside it is that machine's (a node's own
/// NIC or internal switch).
bool owned_by(const topology::TopologyGraph& graph, topology::NodeId node, int machine, const std::vector<int>& machine_of) {
  bool any = false;
  for (const auto edge : boost::make_iterator_range(boost::out_edges(node, graph.graph()))) {
    const topology::NodeId to = boost::target(edge, graph.graph());
    if (graph.node(to).kind != topology::NodeKind::Worker) continue;
    if (machine_of[to] != machine) return false;
    any = true;
  }
  return any;
}

/// The nearest switch past worker `node`'s own machine (its devices and the switches serving it alone): its
/// leaf in the fabric; -1 for none (a ring or a torus of workers).
int leaf_switch(const topology::TopologyGraph& graph, topology::NodeId node, const std::vector<int>& machine_of) {
  const int own = machine_of[node];
  std::vector<bool> seen(graph.node_count(), false);
  std::deque<topology::NodeId> next{node};
  seen[node] = true;
  while (!next.empty()) {
    const topology::NodeId at = next.front();
    next.pop_front();
    for (const auto edge : boost::make_iterator_range(boost::out_edges(at, graph.graph()))) {
      const topology::NodeId to = boost::target(edge, graph.graph());
      if (seen[to]) continue;
      seen[to] = true;
      const topology::NodeKind kind = graph.node(to).kind;
      if (kind == topology::NodeKind::Switch && !owned_by(graph, to, own, machine_of)) return static_cast<int>(to);
      if (kind == topology::NodeKind::Switch || (kind == topology::NodeKind::Worker && machine_of[to] == own)) {
        next.push_back(to);
      }
    }
  }
  return -1;
}

/// The switch above leaf `leaf` that groups it with its neighbours (a k-ary fat tree's pod, by its first aggregation
/// switch; a two-level tree's spine): the first of its switch neighbours that serve no worker directly; -1 for none.
int pod_of(const topology::TopologyGraph& graph, int leaf) {
  if (leaf < 0) return -1;
  int pod = -1;
  for (const auto edge : boost::make_iterator_range(boost::out_edges(static_cast<topology::NodeId>(leaf), graph.graph()))) {
    const topology::NodeId to = boost::target(edge, graph.graph());
    if (graph.node(to).kind != topology::NodeKind::Switch) continue;
    bool serves_workers = false;
    for (const auto up : boost::make_iterator_range(boost::out_edges(to, graph.graph()))) {
      serves_workers = serves_workers || graph.node(boost::target(up, graph.graph())).kind == topology::NodeKind::Worker;
    }
    if (!serves_workers && (pod < 0 || static_cast<int>(to) < pod)) pod = static_cast<int>(to);
  }
  return pod;
}

/// What the node of `graph` named `name` is when it runs no job ("a switch", "a parameter server"); empty where no
/// node has that name.
std::string other_node_kind(const topology::TopologyGraph& graph, const std::string& name) {
  for (topology::NodeId id = 0; id < graph.node_count(); ++id) {
    const topology::NodeProperties& node = graph.node(id);
    if (node.name != name) continue;
    return node.kind == topology::NodeKind::Server ? "a parameter server" : "a switch";
  }
  return {};
}

}  // namespace

ClusterPlacement::ClusterPlacement(const topology::TopologyGraph& graph) {
  const auto workers = graph.workers();
  const auto machines = graph.worker_machines();
  std::vector<int> machine_of(graph.node_count(), -1);
  std::map<int, std::size_t> index_of_machine;
  for (std::size_t rank = 0; rank < workers.size(); ++rank) {
    machine_of[workers[rank]] = machines[rank];
    const auto [at, added] = index_of_machine.emplace(machines[rank], machines_.size());
    if (added) machines_.emplace_back();
    machines_[at->second].ranks.push_back(static_cast<int>(rank));
  }
  for (Machine& machine : machines_) {
    int leaf = -1;
    for (const int rank : machine.ranks) {
      const int found = leaf_switch(graph, workers[static_cast<std::size_t>(rank)], machine_of);
      if (found >= 0 && (leaf < 0 || found < leaf)) leaf = found;
    }
    machine.group = leaf;
    machine.pod = pod_of(graph, leaf);
    group_.push_back(leaf);
  }
  free_.assign(workers.size(), true);
  free_count_ = static_cast<int>(workers.size());
}

std::vector<int> ClusterPlacement::free_of(const Machine& machine) const {
  std::vector<int> out;
  for (const int rank : machine.ranks) {
    if (free_[static_cast<std::size_t>(rank)]) out.push_back(rank);
  }
  return out;
}

std::vector<int> ClusterPlacement::packed(int devices) const {
  // One machine where it fits, the one with the fewest free devices that suffice (best fit).
  const Machine* best = nullptr;
  std::size_t best_free = 0;
  for (const Machine& machine : machines_) {
    const std::size_t free = free_of(machine).size();
    if (std::cmp_greater_equal(free, devices) && (best == nullptr || free < best_free)) {
      best = &machine;
      best_free = free;
    }
  }
  if (best != nullptr) {
    std::vector<int> out = free_of(*best);
    out.resize(static_cast<std::size_t>(devices));
    return out;
  }
  // Else the leaf groups with the most free devices first, the best-fitting single group where one suffices;
  // within a group, whole free machines first.
  std::map<int, std::vector<const Machine*>> groups;
  std::map<int, int> free_in;
  for (const Machine& machine : machines_) {
    groups[machine.group].push_back(&machine);
    free_in[machine.group] += static_cast<int>(free_of(machine).size());
  }
  std::vector<int> order;
  for (const auto& [group, free] : free_in) order.push_back(group);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return free_in[a] > free_in[b]; });
  // The group that fits alone with the fewest free devices (the first of equals) goes first.
  std::optional<int> fitting;
  for (const int group : order) {
    if (free_in[group] >= devices && (!fitting || free_in[group] < free_in[*fitting])) fitting = group;
  }
  if (fitting) {
    std::rotate(order.begin(), std::find(order.begin(), order.end(), *fitting), std::find(order.begin(), order.end(), *fitting) + 1);
  } else if (const std::optional<int> pod = fitting_pod(devices)) {
    // No leaf suffices: the leaves of the pod that fits with the fewest free devices first.
    std::stable_partition(order.begin(), order.end(), [&](int group) { return groups[group].front()->pod == *pod; });
  }
  std::vector<int> out;
  for (const int group : order) {
    std::vector<const Machine*> machines = groups[group];
    std::stable_sort(machines.begin(), machines.end(), [&](const Machine* a, const Machine* b) {
      return free_of(*a).size() == a->ranks.size() && free_of(*b).size() != b->ranks.size();
    });
    for (const Machine* machine : machines) {
      for (const int rank : free_of(*machine)) {
        if (std::cmp_less(out.size(), devices)) out.push_back(rank);
      }
    }
  }
  return out;
}

std::optional<int> ClusterPlacement::fitting_pod(int devices) const {
  std::map<int, int> free_in;
  for (const Machine& machine : machines_) {
    if (machine.pod >= 0) free_in[machine.pod] += static_cast<int>(free_of(machine).size());
  }
  std::optional<int> out;
  for (const auto& [pod, free] : free_in) {
    if (free >= devices && (!out || free < free_in[*out])) out = pod;
  }
  return out;
}

std::vector<int> ClusterPlacement::spread(int devices) const {
  // Machines taken in turn from each leaf group, whole machines first within each.
  std::map<int, std::deque<const Machine*>> groups;
  for (const Machine& machine : machines_) {
    if (!free_of(machine).empty()) groups[machine.group].push_back(&machine);
  }
  std::vector<int> out;
  while (std::cmp_less(out.size(), devices) && !groups.empty()) {
    for (auto it = groups.begin(); it != groups.end() && std::cmp_less(out.size(), devices);) {
      for (const int rank : free_of(*it->second.front())) {
        if (std::cmp_less(out.size(), devices)) out.push_back(rank);
      }
      it->second.pop_front();
      it = it->second.empty() ? groups.erase(it) : std::next(it);
    }
  }
  return out;
}

std::vector<int> ClusterPlacement::shuffled(int devices, std::uint64_t seed) const {
  std::vector<const Machine*> machines;
  for (const Machine& machine : machines_) {
    if (!free_of(machine).empty()) machines.push_back(&machine);
  }
  // Fisher-Yates on mt19937_64's draws, whose sequence the standard fixes (std::shuffle's use of it is not).
  std::mt19937_64 draws(seed);
  for (std::size_t i = machines.size(); i > 1; --i) std::swap(machines[i - 1], machines[draws() % i]);
  std::vector<int> out;
  for (const Machine* machine : machines) {
    for (const int rank : free_of(*machine)) {
      if (std::cmp_less(out.size(), devices)) out.push_back(rank);
    }
  }
  return out;
}

std::optional<std::vector<int>> ClusterPlacement::choose(int devices, scenario::JobPlacement placement,
                                                         const std::vector<int>& hosts, std::uint64_t seed) const {
  if (devices > free_count_) return std::nullopt;
  std::vector<int> out;
  switch (placement) {
    case scenario::JobPlacement::packed: out = packed(devices); break;
    case scenario::JobPlacement::spread: out = spread(devices); break;
    case scenario::JobPlacement::random: out = shuffled(devices, seed); break;
    case scenario::JobPlacement::explicit_hosts:
      for (const int rank : hosts) {
        if (!free_.at(static_cast<std::size_t>(rank))) return std::nullopt;
      }
      out = hosts;
      break;
  }
  if (std::cmp_less(out.size(), devices)) return std::nullopt;
  return out;
}

void ClusterPlacement::take(const std::vector<int>& ranks) {
  for (const int rank : ranks) free_.at(static_cast<std::size_t>(rank)) = false;
  free_count_ -= static_cast<int>(ranks.size());
}

void ClusterPlacement::give_back(const std::vector<int>& ranks) {
  for (const int rank : ranks) free_.at(static_cast<std::size_t>(rank)) = true;
  free_count_ += static_cast<int>(ranks.size());
}

std::vector<int> explicit_ranks(const scenario::JobSpec& spec, const topology::TopologyGraph& graph,
                                core::DiagnosticSink& sink) {
  std::map<std::string, int> rank_of;
  for (std::size_t rank = 0; rank < graph.workers().size(); ++rank) {
    rank_of[graph.node(graph.workers()[rank]).name] = static_cast<int>(rank);
  }
  const std::string key = fmt::format("jobs[{}].hosts", spec.index);
  std::vector<int> out;
  for (const scenario::Located<std::string>& host : spec.hosts) {
    const auto found = rank_of.find(host.value);
    if (found == rank_of.end()) {
      const std::string other = other_node_kind(graph, host.value);
      sink.error(host.where, key,
                 fmt::format("job '{}' names host '{}', which is {}not a worker of the cluster", spec.name, host.value,
                             other.empty() ? "" : other + ", "),
                 fmt::format("the workers are {} to {} (`dtsim explain` lists them)",
                             graph.node(graph.workers().front()).name, graph.node(graph.workers().back()).name));
    } else if (std::find(out.begin(), out.end(), found->second) != out.end()) {
      sink.error(host.where, key, fmt::format("job '{}' names host '{}' twice", spec.name, host.value),
                 "a worker runs one rank of one job: name each host once");
    } else {
      out.push_back(found->second);
    }
  }
  return out;
}

std::vector<int> explicit_ranks(const scenario::JobSpec& spec, const topology::TopologyGraph& graph) {
  core::DiagnosticSink sink;
  std::vector<int> out = explicit_ranks(spec, graph, sink);
  sink.throw_if_any();
  return out;
}

}  // namespace dtsim::runtime
