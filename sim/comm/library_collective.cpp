#include "sim/comm/library_collective.hpp"

#include "sim/comm/channel_rings.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace dtsim::comm {
namespace {

// NCCL's ring model (github.com/NVIDIA/nccl, src/graph/tuning.cc at v2.18.5-1; the ring's rows are the
// same in 2.20 and on master at 5067397c): microseconds per call (baseLat) and per step (hwLat, NVLink and
// network rows), by protocol.
constexpr double kMicro = 1e-6;
struct Table {
  double launch, nvlink_step, network_step;
};
constexpr Table kRing[] = {
    {6.6, 0.6, 2.7},    // LL
    {14.0, 1.9, 4.0},   // LL128
    {8.4, 3.4, 14.0},   // Simple
};

// NVLS in NCCL's model (src/graph/tuning.cc at 5067397c): 25 us of NVLink latency, no base latency, and the
// generation's nvlsEfficiency (library_collective.hpp).
constexpr double kNvlsLatency = 25e-6;

std::size_t index_of(Protocol protocol) { return static_cast<std::size_t>(protocol); }

struct Steps {
  int all = 0;
  int across_nodes = 0;
};

Steps ring_steps(const CallShape& call) {
  switch (call.operation) {
    // NCCL counts 2n steps across n > 1 nodes (no more than there are steps, one rank per node).
    case Operation::allreduce:
      return {2 * (call.ranks - 1), call.nodes > 1 ? std::min(2 * call.nodes, 2 * (call.ranks - 1)) : 0};
    case Operation::reduce_scatter:
    case Operation::allgather: return {call.ranks - 1, call.nodes - 1};
    case Operation::broadcast:
    case Operation::reduce: return {call.ranks, call.nodes};
    // NCCL runs all-to-all as grouped sends and receives, outside this ring model: `dtsim collective`
    // refuses it under the library; p-1 steps if one came here.
    case Operation::all_to_all: return {call.ranks - 1, call.nodes - 1};
  }
  return {};
}

/// The bytes NVLS moves on each GPU's link, each way.
double nvls_link_bytes(const CallShape& call) { return call.bytes * (1.0 + 1.0 / call.ranks); }

/// The network's latency stays; its bandwidth part is stretched by the protocol's share.
double stretched(NetworkTime network, double share) {
  const double latency = std::min(network.latency, network.total);
  return latency + (network.total - latency) / share;
}

/// The latency part of this rank's network time for `call`: the ring's steps inside a node at the route
/// latency to another rank of this machine, those across nodes at the route latency to a rank of another.
double network_latency(const Transport& transport, const CallShape& call) {
  const Steps steps = ring_steps(call);
  const std::span<const int> machines = transport.machines();
  const int me = transport.rank();
  const auto machine = [&](int r) { return machines.empty() ? r : machines[static_cast<std::size_t>(r)]; };
  double inside = 0.0;
  double across = 0.0;
  // Only the kinds of step the call has are looked for: a search for a kind it lacks (another machine when
  // every rank shares one) would visit every rank at every call.
  bool found_inside = steps.all == steps.across_nodes;
  bool found_across = steps.across_nodes == 0;
  // Peers in ring order from the next rank on: the ring's own neighbours first.
  for (int k = 1; k < transport.size() && !(found_inside && found_across); ++k) {
    const int r = (me + k) % transport.size();
    const bool same = machine(r) == machine(me);
    if (same && !found_inside) inside = transport.latency_to(r), found_inside = true;
    if (!same && !found_across) across = transport.latency_to(r), found_across = true;
  }
  return (steps.all - steps.across_nodes) * inside + steps.across_nodes * across;
}

/// The transport a ring collective runs on under the library: its ring phases split over the channels' rings,
/// which run at once; everything else as the transport itself does it.
class ChannelTransport final : public Transport {
 public:
  ChannelTransport(Transport& parent, const LibraryCollective::Channels& channels)
      : parent_(&parent), channels_(&channels) {}
  [[nodiscard]] int rank() const override { return parent_->rank(); }
  [[nodiscard]] int size() const override { return parent_->size(); }
  [[nodiscard]] std::span<const int> machines() const override { return parent_->machines(); }
  void send(int to, Buffer data) override { parent_->send(to, std::move(data)); }
  Buffer recv(int from) override { return parent_->recv(from); }
  Buffer send_recv(int to, Buffer data, int from) override { return parent_->send_recv(to, std::move(data), from); }
  std::vector<Buffer> recv_from_each(std::span<const int> from) override { return parent_->recv_from_each(from); }
  void send_to_each(std::span<const int> to, std::vector<Buffer> data) override {
    parent_->send_to_each(to, std::move(data));
  }
  std::vector<Buffer> exchange(std::span<const int> to, std::vector<Buffer> data, std::span<const int> from) override {
    return parent_->exchange(to, std::move(data), from);
  }
  std::unique_ptr<Pending> post_send(int to, Buffer data, int tag) override {
    return parent_->post_send(to, std::move(data), tag);
  }
  std::unique_ptr<Pending> post_recv(int from, int tag) override { return parent_->post_recv(from, tag); }
  /// A ring phase: each channel's ring carries its share of every round's chunk.
  void shift_rounds(int to, int from, std::size_t elements, int rounds) override {
    const std::size_t channels = channels_->rings->size();
    parent_->group_rounds(
        to, from, (elements + channels - 1) / channels, rounds,
        RingSet{channels_->rings, false, ((to - rank()) % size() + size()) % size(), true, channels_->places});
  }
  void group_rounds(int to, int from, std::size_t elements, int rounds, const RingSet& phase) override {
    parent_->group_rounds(to, from, elements, rounds, phase);
  }
  void run_steps(std::span<const Step> steps) override { parent_->run_steps(steps); }
  [[nodiscard]] bool times_phases_at_once() const override { return parent_->times_phases_at_once(); }
  [[nodiscard]] double now() const override { return parent_->now(); }
  [[nodiscard]] double latency_to(int peer) const override { return parent_->latency_to(peer); }
  void spend(double seconds) override { parent_->spend(seconds); }

 private:
  Transport* parent_;
  const LibraryCollective::Channels* channels_;
};

}  // namespace

std::string_view to_string(Protocol protocol) {
  switch (protocol) {
    case Protocol::LL: return "LL";
    case Protocol::LL128: return "LL128";
    case Protocol::Simple: return "Simple";
    case Protocol::NVLS: return "NVLS";
  }
  return "Simple";
}

ProtocolCosts protocol_costs(Protocol protocol, const CallShape& call) {
  if (protocol == Protocol::NVLS) return ProtocolCosts{kNvlsLatency, 0.0, 0.0, kHopperNvlsEfficiency};
  const Table& row = kRing[index_of(protocol)];
  ProtocolCosts out{row.launch * kMicro, row.nvlink_step * kMicro, row.network_step * kMicro, 1.0};
  const bool several_nodes = call.nodes > 1;
  switch (protocol) {
    case Protocol::LL:
      out.bandwidth_share = several_nodes || call.operation == Operation::allreduce || call.operation == Operation::reduce
                                ? 1.0 / 4.0
                                : 1.0 / 3.0;
      break;
    case Protocol::LL128:
      out.bandwidth_share = call.ranks < 2 * call.nodes ? 0.7 : 0.92;
      break;
    case Protocol::Simple:
    case Protocol::NVLS: break;
  }
  // Across nodes every step posts to the network: a step inside a node costs at least the post's overhead
  // (NCCL's default on x86 Intel hosts: 1 us, three times that for Simple).
  if (several_nodes) out.intra_step = std::max(out.intra_step, (protocol == Protocol::Simple ? 3.0 : 1.0) * kMicro);
  return out;
}

double library_time(Protocol protocol, const CallShape& call, NetworkTime network) {
  if (call.ranks < 2) return network.total;
  const ProtocolCosts costs = protocol_costs(protocol, call);
  const Steps steps = ring_steps(call);
  // Broadcast and reduce pipeline their chunks down one ring: one step's latency, not every step's.
  const bool pipelined = call.operation == Operation::broadcast || call.operation == Operation::reduce;
  const double step = call.nodes > 1 ? costs.inter_step : costs.intra_step;
  double latency = costs.launch + (pipelined ? step
                                             : (steps.all - steps.across_nodes) * costs.intra_step +
                                                   steps.across_nodes * costs.inter_step);
  if (protocol == Protocol::Simple && call.nodes > 1 && call.operation == Operation::allreduce &&
      call.bytes >= call.ranks / 16.0 * 65536.0) {
    latency *= 1.9;
  }
  return latency + stretched(network, costs.bandwidth_share);
}

double nvls_time(NetworkTime network, double efficiency) {
  const ProtocolCosts costs = protocol_costs(Protocol::NVLS, CallShape{});
  return costs.launch + stretched(network, efficiency);
}

double nvls_message_bytes(const CallShape& call) { return nvls_link_bytes(call) / (call.ranks - 1.0); }

Protocol chosen_protocol(const CallShape& call, NetworkTime network) {
  Protocol best = kProtocols.front();
  double least = library_time(best, call, network);
  for (const Protocol protocol : kProtocols) {
    const double time = library_time(protocol, call, network);
    if (time < least) best = protocol, least = time;
  }
  return best;
}

int machine_count(const Transport& transport) {
  const std::span<const int> machines = transport.machines();
  if (machines.empty()) return transport.size();
  // Ranks come machine by machine in every built-in placement: count the boundaries without a copy.
  if (std::is_sorted(machines.begin(), machines.end())) {
    int count = 1;
    for (std::size_t i = 1; i < machines.size(); ++i) count += machines[i] != machines[i - 1] ? 1 : 0;
    return count;
  }
  std::vector<int> distinct(machines.begin(), machines.end());
  std::sort(distinct.begin(), distinct.end());
  return static_cast<int>(std::unique(distinct.begin(), distinct.end()) - distinct.begin());
}

bool LibraryCollective::runs_nvls(const CallShape& call, bool has_values) const {
  if (!nvls_ || has_values || call.operation != Operation::allreduce || call.nodes != 1 || call.ranks < 2) return false;
  // Each message crosses two links, GPU to switch and switch to GPU.
  const AlphaBeta link{core::Seconds(2.0 * nvls_->latency), core::BytesPerSecond(nvls_->bandwidth)};
  const NetworkTime ring_network{inner_->predicted_time(call.ranks, core::Bytes(call.bytes), link).value(),
                                 inner_->predicted_time(call.ranks, core::Bytes(0.0), link).value()};
  const double ring = library_time(chosen_protocol(call, ring_network), call, ring_network);
  const NetworkTime nvls_network{link.alpha.value() + nvls_link_bytes(call) / nvls_->bandwidth, link.alpha.value()};
  return nvls_time(nvls_network, nvls_->efficiency) < ring;
}

void LibraryCollective::run(Transport& transport, Block data) const {
  const double start = transport.now();
  const CallShape call{operation(), transport.size(), machine_count(transport), 4.0 * static_cast<double>(data.size())};
  if (runs_nvls(call, data.has_values())) {
    // The switch's traffic as messages: each rank sends its share of the bytes its link carries to each other
    // rank, all at once, so that every link to the switch carries bytes x (1 + 1/p) each way.
    const std::vector<int> others = others_than(transport.rank(), transport.size());
    const auto elements = static_cast<std::size_t>(std::ceil(nvls_message_bytes(call) / 4.0));
    const Step step{others, others, elements};
    transport.run_steps(std::span<const Step>(&step, 1));
    const NetworkTime network{transport.now() - start, transport.latency_to(others.front())};
    if (on_choice_ && transport.rank() == 0) on_choice_(Protocol::NVLS);
    transport.spend(nvls_time(network, nvls_->efficiency) - network.total);
    return;
  }
  if (const Channels* rings = channels(transport, call, data.has_values())) {
    ChannelTransport channels(transport, *rings);
    inner_->run(channels, data);
  } else {
    inner_->run(transport, data);
  }
  const NetworkTime network{transport.now() - start, network_latency(transport, call)};
  const Protocol protocol = chosen_protocol(call, network);
  if (on_choice_ && transport.rank() == 0) on_choice_(protocol);
  transport.spend(library_time(protocol, call, network) - network.total);
}

const LibraryCollective::Channels* LibraryCollective::channels(const Transport& transport, const CallShape& call,
                                                                bool has_values) const {
  // Messages that carry values keep the one ring in rank order, whose chunks they are. One machine, or one
  // rank a machine, has one ring: the common case (a tensor group in a node) returns before any copy.
  if (has_values || call.nodes < 2 || call.nodes == call.ranks || inner_->uncontended_on() != "ring") return nullptr;
  const std::span<const int> machines = transport.machines();
  std::vector<int> key(machines.begin(), machines.end());
  const std::lock_guard lock(channels_mutex_);
  auto found = channels_.find(key);
  if (found == channels_.end()) {
    Channels made;
    made.rings = channel_rings(machines);
    if (made.rings) made.places = ring_places(*made.rings, call.ranks);
    found = channels_.emplace(std::move(key), std::move(made)).first;
  }
  return found->second.rings ? &found->second : nullptr;
}

core::Seconds LibraryCollective::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  const NetworkTime network{inner_->predicted_time(ranks, size, cost).value(),
                            inner_->predicted_time(ranks, core::Bytes(0.0), cost).value()};
  const CallShape call{operation(), ranks, ranks, size.value()};
  return core::Seconds(library_time(chosen_protocol(call, network), call, network));
}

}  // namespace dtsim::comm
