#include "sim/runtime/s4u_transport.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>

namespace dtsim::runtime {
namespace s4u = simgrid::s4u;
namespace {

constexpr int kMaxTag = 65535;

/// A posted message; wait() books its time on the transport that posted it.
class S4uPending final : public comm::Pending {
 public:
  S4uPending(S4uTransport& owner, s4u::CommPtr comm, std::unique_ptr<comm::Buffer*> payload)
      : owner_(&owner), comm_(std::move(comm)), payload_(std::move(payload)), posted_at_(s4u::Engine::get_clock()) {}

  [[nodiscard]] const s4u::CommPtr& comm() const { return comm_; }
  [[nodiscard]] double posted_at() const { return posted_at_; }

  comm::Buffer wait() override {
    comm_->wait();
    owner_->account(posted_at_, {comm_});
    if (!payload_) return {};
    return std::move(*std::unique_ptr<comm::Buffer>(*payload_));
  }

 private:
  S4uTransport* owner_;
  s4u::CommPtr comm_;
  // For a receive: where SimGrid stores the pointer to the arriving message (stable across moves).
  std::unique_ptr<comm::Buffer*> payload_;
  double posted_at_;
};

/// A message posted under the analytical network; wait() books its time on the transport that posted it.
class AnalyticalPending final : public comm::Pending {
 public:
  AnalyticalPending(S4uTransport& owner, AnalyticalNetwork& network, std::shared_ptr<AnalyticalNetwork::Message> message,
                    bool receive)
      : owner_(&owner), network_(&network), message_(std::move(message)), receive_(receive),
        posted_at_(s4u::Engine::get_clock()) {}

  comm::Buffer wait() override {
    const AnalyticalNetwork::Phase moved = network_->wait(*message_);
    owner_->account_analytical(posted_at_, moved, receive_ ? message_.get() : nullptr);
    if (!receive_) return {};
    return std::move(message_->data);
  }

 private:
  S4uTransport* owner_;
  AnalyticalNetwork* network_;
  std::shared_ptr<AnalyticalNetwork::Message> message_;
  bool receive_;
  double posted_at_;
};

}  // namespace

S4uTransport::S4uTransport(const RunNetwork& network, GroupSpec group, Meter meter)
    : group_(std::move(group.name)),
      rank_(group.rank),
      size_(group.size),
      meter_(std::move(meter)),
      shortcut_(group.shortcut),
      machines_(group.machines),
      traffic_(network.traffic),
      routes_(network.traffic != nullptr ? network.traffic : network.routes),
      hosts_(group.hosts),
      analytical_(network.analytical),
      mirrored_(group.mirrored),
      meeting_(std::move(group.meeting)) {}

void S4uTransport::check_peer(int peer, int tag) const {
  if (peer < 0 || peer >= size_) throw std::out_of_range(fmt::format("rank {} of {}", peer, size_));
  if (tag < 0 || tag > kMaxTag) throw std::out_of_range(fmt::format("channel {} outside 0..{}", tag, kMaxTag));
}

std::string S4uTransport::channel(int from, int to, int tag) const {
  return tag == 0 ? fmt::format("{}/{}->{}", group_, from, to) : fmt::format("{}/{}->{}#{}", group_, from, to, tag);
}

s4u::Mailbox* S4uTransport::mailbox(int from, int to, int tag) {
  const int peer = from == rank_ ? to : from;
  check_peer(peer, tag);
  const std::uint64_t key = (static_cast<std::uint64_t>(peer) << 17U) | (static_cast<std::uint64_t>(tag) << 1U) |
                            (from == rank_ ? 1U : 0U);
  s4u::Mailbox*& slot = mailboxes_[key];
  if (slot == nullptr) slot = s4u::Mailbox::by_name(channel(from, to, tag));
  return slot;
}

s4u::CommPtr S4uTransport::start_send(int to, comm::Buffer data, int tag) {
  const auto bytes = static_cast<std::uint64_t>(comm::wire_bytes(data));
  meter_.observer().on_sent(meter_.lane(), static_cast<double>(bytes), 1);
  if (traffic_ != nullptr) {
    const auto host = [this](int rank) { return hosts_.empty() ? rank : hosts_[static_cast<std::size_t>(rank)]; };
    traffic_->add(host(rank_), host(to), static_cast<double>(bytes));
  }
  auto payload = std::make_unique<comm::Buffer>(std::move(data));
  s4u::CommPtr comm = mailbox(rank_, to, tag)->put_async(payload.get(), bytes);
  // The receiver takes ownership once the transfer completes.
  static_cast<void>(payload.release());
  return comm;
}

s4u::CommPtr S4uTransport::start_recv(int from, comm::Buffer** payload, int tag) {
  return mailbox(from, rank_, tag)->get_async<comm::Buffer>(payload);
}

void S4uTransport::account(double posted_at, const std::vector<s4u::CommPtr>& comms) {
  // Messages first: several may complete at one instant, after the first has accounted for it.
  if (meter_.observer().wants_messages()) report_messages(comms);
  const double now = s4u::Engine::get_clock();
  const double since = std::max(posted_at, meter_.accounted_until());
  if (now <= since) return;
  // Communication time is the union of the transfers' [start, finish] intervals within [since, now]; the
  // rest was spent waiting for peers.
  std::vector<Span> transfers;
  transfers.reserve(comms.size());
  for (const auto& comm : comms) transfers.push_back({comm->get_start_time(), comm->get_finish_time()});
  meter_.observer().on_communication(meter_.lane(), {since, now}, disjoint_union(std::move(transfers), {since, now}));
  meter_.account_until(now);
}

double S4uTransport::now() const { return s4u::Engine::get_clock(); }

void S4uTransport::spend(double seconds) {
  if (seconds <= 0.0) return;
  const double start = s4u::Engine::get_clock();
  s4u::this_actor::sleep_for(seconds);
  const double end = s4u::Engine::get_clock();
  const double since = std::max(start, meter_.accounted_until());
  if (end <= since) return;
  const Span spent{since, end};
  meter_.observer().on_communication(meter_.lane(), spent, std::span<const Span>(&spent, 1));
  meter_.account_until(end);
}

void S4uTransport::account_analytical(double posted_at, AnalyticalNetwork::Phase moved,
                                      const AnalyticalNetwork::Message* received) {
  if (received != nullptr && meter_.observer().wants_messages()) {
    meter_.observer().on_message(analytical_->host_name(received->from), meter_.lane(), {moved.start, moved.end},
                                 received->bytes);
  }
  const double now = s4u::Engine::get_clock();
  const double since = std::max(posted_at, meter_.accounted_until());
  if (now <= since) return;
  const Span moving{std::clamp(moved.start, since, now), std::clamp(moved.end, since, now)};
  meter_.observer().on_communication(meter_.lane(), {since, now},
                                     moving.end > moving.start ? std::span<const Span>(&moving, 1) : std::span<const Span>());
  meter_.account_until(now);
}

void S4uTransport::report_messages(const std::vector<s4u::CommPtr>& comms) {
  // A receive is the side that knows both ends: the sender's actor, and the payload with its size. A
  // message waited for twice (wait_any, then wait) is reported once: the first report marks it.
  static const char reported = 0;
  for (const auto& comm : comms) {
    auto* const* received = static_cast<comm::Buffer* const*>(comm->get_dst_data());
    if (received == nullptr || *received == nullptr || comm->get_sender() == nullptr) continue;
    if (comm->get_data<const char>() == &reported) continue;
    comm->set_data(const_cast<char*>(&reported));  // SimGrid's data slot is untyped; only compared here
    meter_.observer().on_message(comm->get_sender()->get_host()->get_name(), meter_.lane(),
                                 {comm->get_start_time(), comm->get_finish_time()}, comm::wire_bytes(**received));
  }
}

void S4uTransport::send(int to, comm::Buffer data) {
  if (analytical_ != nullptr) {
    static_cast<void>(post_send(to, std::move(data), 0)->wait());
    return;
  }
  const double posted_at = s4u::Engine::get_clock();
  s4u::CommPtr comm = start_send(to, std::move(data));
  comm->wait();
  account(posted_at, {comm});
}

comm::Buffer S4uTransport::recv(int from) {
  if (analytical_ != nullptr) return post_recv(from, 0)->wait();
  const double posted_at = s4u::Engine::get_clock();
  comm::Buffer* payload = nullptr;
  s4u::CommPtr comm = start_recv(from, &payload);
  comm->wait();
  account(posted_at, {comm});
  return std::move(*std::unique_ptr<comm::Buffer>(payload));
}

comm::Buffer S4uTransport::send_recv(int to, comm::Buffer data, int from) {
  if (analytical_ != nullptr) {
    const std::unique_ptr<comm::Pending> sending = post_send(to, std::move(data), 0);
    comm::Buffer received = post_recv(from, 0)->wait();
    static_cast<void>(sending->wait());
    return received;
  }
  const double posted_at = s4u::Engine::get_clock();
  s4u::CommPtr sending = start_send(to, std::move(data));
  comm::Buffer* payload = nullptr;
  s4u::CommPtr receiving = start_recv(from, &payload);
  receiving->wait();
  sending->wait();
  account(posted_at, {sending, receiving});
  return std::move(*std::unique_ptr<comm::Buffer>(payload));
}

std::vector<comm::Buffer> S4uTransport::recv_from_each(std::span<const int> from) { return exchange({}, {}, from); }

std::vector<comm::Buffer> S4uTransport::exchange(std::span<const int> to, std::vector<comm::Buffer> data,
                                                 std::span<const int> from) {
  if (analytical_ != nullptr) {
    std::vector<std::unique_ptr<comm::Pending>> pending;
    for (std::size_t i = 0; i < to.size(); ++i) pending.push_back(post_send(to[i], std::move(data[i]), 0));
    for (const int peer : from) pending.push_back(post_recv(peer, 0));
    std::vector<comm::Buffer> out;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      comm::Buffer message = pending[i]->wait();
      if (i >= to.size()) out.push_back(std::move(message));
    }
    return out;
  }
  const double posted_at = s4u::Engine::get_clock();
  std::vector<s4u::CommPtr> comms;
  comms.reserve(to.size() + from.size());
  for (std::size_t i = 0; i < to.size(); ++i) comms.push_back(start_send(to[i], std::move(data[i])));
  std::vector<comm::Buffer*> payloads(from.size(), nullptr);
  for (std::size_t i = 0; i < from.size(); ++i) comms.push_back(start_recv(from[i], &payloads[i]));
  for (const auto& comm : comms) comm->wait();
  account(posted_at, comms);
  std::vector<comm::Buffer> out;
  out.reserve(from.size());
  for (comm::Buffer* payload : payloads) out.push_back(std::move(*std::unique_ptr<comm::Buffer>(payload)));
  return out;
}

void S4uTransport::send_to_each(std::span<const int> to, std::vector<comm::Buffer> data) {
  exchange(to, std::move(data), {});
}

std::unique_ptr<comm::Pending> S4uTransport::post_send(int to, comm::Buffer data, int tag) {
  if (analytical_ != nullptr) {
    check_peer(to, tag);
    if (mirrored_) throw std::logic_error("a rank standing for others sent a message of its own");
    meter_.observer().on_sent(meter_.lane(), comm::wire_bytes(data), 1);
    std::string joint;
    if (!meeting_.name.empty()) {
      // The n-th message of this channel in every group of the meeting moves together.
      const auto key = (static_cast<std::uint64_t>(to) << 17U) | static_cast<std::uint64_t>(tag);
      joint = fmt::format("{}/{}->{}#{}/{}", meeting_.name, rank_, to, tag, joint_messages_[key]++);
    }
    const int groups = meeting_.name.empty() ? 1 : meeting_.size / size_;
    return std::make_unique<AnalyticalPending>(*this, *analytical_,
                                               analytical_->post_send(channel(rank_, to, tag), host(rank_), host(to),
                                                                      std::move(data), traffic_, std::move(joint), groups),
                                               false);
  }
  return std::make_unique<S4uPending>(*this, start_send(to, std::move(data), tag), nullptr);
}

std::unique_ptr<comm::Pending> S4uTransport::post_recv(int from, int tag) {
  if (analytical_ != nullptr) {
    check_peer(from, tag);
    return std::make_unique<AnalyticalPending>(*this, *analytical_, analytical_->post_recv(channel(from, rank_, tag)), true);
  }
  auto payload = std::make_unique<comm::Buffer*>(nullptr);
  s4u::CommPtr comm = start_recv(from, payload.get(), tag);
  return std::make_unique<S4uPending>(*this, std::move(comm), std::move(payload));
}

std::size_t S4uTransport::wait_any(std::span<comm::Pending* const> pending) {
  std::vector<s4u::CommPtr> comms;
  comms.reserve(pending.size());
  double posted_at = s4u::Engine::get_clock();
  for (comm::Pending* one : pending) {
    const auto* posted = dynamic_cast<const S4uPending*>(one);
    if (posted == nullptr) {
      throw std::logic_error(analytical_ != nullptr ? "wait_any on messages timed by the analytical network"
                                                    : "wait_any on a message another transport posted");
    }
    comms.push_back(posted->comm());
    posted_at = std::min(posted_at, posted->posted_at());
  }
  // SimGrid 3.32's wait_any returns the first complete message in the order given, which keeps runs
  // deterministic. (Testing each message first did the same, but every failed test() left work behind that
  // made long parameter-server runs quadratic: 7.4 s instead of 0.4 s for 30,000 messages.)
  const auto index = static_cast<std::size_t>(s4u::Comm::wait_any(comms));
  account(posted_at, {comms[index]});
  return index;
}

void S4uTransport::group_rounds(int to, int from, std::size_t elements, int rounds, const comm::RingSet& phase) {
  if (analytical_ != nullptr) {
    analytical_rounds(to, elements, rounds, phase);
    return;
  }
  comm::Transport::group_rounds(to, from, elements, rounds, phase);
}

void S4uTransport::analytical_rounds(int to, std::size_t elements, int rounds, const comm::RingSet& ring_set) {
  const double arrived = s4u::Engine::get_clock();
  const double bytes = static_cast<double>(comm::wire_bytes(comm::Buffer::sized(elements)));
  AnalyticalNetwork::Phase phase;
  // Every rank's bytes are counted as the phase starts (see AnalyticalNetwork::enter).
  const bool joined = !meeting_.name.empty();
  if (mirrored_ && joined) {
    // This rank stands for its group, one of the meeting's groups, each simulated by one rank.
    phase = analytical_->enter_for_group(meeting_.name, meeting_.size / size_, phases_entered_++,
                                         meeting_.offset / size_, size_, hosts_, ring_set, bytes, rounds);
  } else if (mirrored_) {
    phase = {arrived, arrived + analytical_->phase_for_all(size_, hosts_, ring_set, bytes, rounds)};
  } else {
    std::vector<AnalyticalNetwork::Send> sends;
    if (ring_set.parallel) {
      for (const int peer : comm::parallel_ring_peers(ring_set, rank_).to) sends.push_back({host(rank_), host(peer), bytes});
    } else {
      sends.push_back({host(rank_), host(to), bytes});
    }
    phase = analytical_->enter(joined ? meeting_.name : group_, joined ? meeting_.size : size_, phases_entered_++,
                               meeting_.offset + rank_, sends, rounds, traffic_);
  }
  if (mirrored_ && traffic_ != nullptr) analytical_->count_for_all(size_, hosts_, ring_set, bytes, rounds);
  const int messages = rounds * (ring_set.parallel ? static_cast<int>(ring_set.rings->size()) : 1);
  meter_.observer().on_sent(meter_.lane(), bytes * messages, messages);
  wait_for_phase(arrived, phase);
}

void S4uTransport::run_steps(std::span<const comm::Step> steps) {
  if (analytical_ == nullptr) {
    comm::Transport::run_steps(steps);
    return;
  }
  if (mirrored_) throw std::logic_error("a rank standing for others ran steps that do not say where they send");
  const double arrived = s4u::Engine::get_clock();
  const auto bytes_per_element = static_cast<double>(comm::wire_bytes(comm::Buffer::sized(1)));
  double bytes = 0.0;
  std::int64_t messages = 0;
  for (const comm::Step& step : steps) {
    bytes += static_cast<double>(step.to.size() * step.elements) * bytes_per_element;
    messages += static_cast<std::int64_t>(step.to.size());
  }
  AnalyticalNetwork::Phase phase;
  if (meeting_.name.empty()) {
    phase = analytical_->enter_steps(group_, size_, phases_entered_++, rank_, host(rank_), steps, bytes_per_element,
                                     traffic_);
  } else {
    // Peers by rank in the meeting.
    std::vector<comm::Step> shifted(steps.begin(), steps.end());
    for (comm::Step& step : shifted) {
      for (int& peer : step.to) peer += meeting_.offset;
      for (int& peer : step.from) peer += meeting_.offset;
    }
    phase = analytical_->enter_steps(meeting_.name, meeting_.size, phases_entered_++, meeting_.offset + rank_, host(rank_),
                                     shifted, bytes_per_element, traffic_);
  }
  if (messages > 0) meter_.observer().on_sent(meter_.lane(), bytes, messages);
  wait_for_phase(arrived, phase);
}

void S4uTransport::wait_for_phase(double arrived, AnalyticalNetwork::Phase phase) {
  s4u::this_actor::sleep_until(phase.end);
  const double since = std::max(arrived, meter_.accounted_until());
  if (phase.end > since) {
    const Span moving{std::max(phase.start, since), phase.end};
    meter_.observer().on_communication(meter_.lane(), {since, phase.end}, std::span<const Span>(&moving, 1));
    meter_.account_until(phase.end);
  }
}

void S4uTransport::shift_rounds(int to, int from, std::size_t elements, int rounds) {
  const int shift = ((to - rank_) % size_ + size_) % size_;
  if (analytical_ != nullptr) {
    analytical_rounds(to, elements, rounds, comm::RingSet{nullptr, true, shift});
    return;
  }
  const bool mirrored = ((rank_ - from) % size_ + size_) % size_ == shift;
  if (rounds < 3 || shortcut_ == nullptr || !mirrored || !shortcut_->applies(shift)) {
    comm::Transport::group_rounds(to, from, elements, rounds, comm::RingSet{nullptr, true, shift});
    return;
  }
  const double start = s4u::Engine::get_clock();
  static_cast<void>(send_recv(to, comm::Buffer::sized(elements), from));
  const double round = s4u::Engine::get_clock() - start;
  const double rest_start = s4u::Engine::get_clock();
  static_cast<void>(send_recv(to, comm::Buffer::sized(elements * static_cast<std::size_t>(rounds - 1)), from));
  const double rest = s4u::Engine::get_clock() - rest_start;
  const double pause = round * (rounds - 1) - rest;
  if (pause > 0.0) {
    const double paused_at = s4u::Engine::get_clock();
    s4u::this_actor::sleep_for(pause);
    const Span span{paused_at, s4u::Engine::get_clock()};
    meter_.account_until(span.end);
    meter_.observer().on_communication(meter_.lane(), span, std::span<const Span>(&span, 1));
  }
  // Count the messages the rounds would have sent one by one.
  meter_.observer().on_sent(meter_.lane(), 0.0, rounds - 2);
}

}  // namespace dtsim::runtime
