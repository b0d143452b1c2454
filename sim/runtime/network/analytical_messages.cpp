#include "sim/runtime/network/analytical_messages.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>

namespace dtsim::runtime {
namespace s4u = simgrid::s4u;
namespace {

/// A message posted under the analytical network; wait() books its time on the messages that posted it.
class AnalyticalPending final : public comm::Pending {
 public:
  AnalyticalPending(AnalyticalMessages& owner, AnalyticalNetwork& network,
                    std::shared_ptr<AnalyticalNetwork::Message> message, bool receive)
      : owner_(&owner),
        network_(&network),
        message_(std::move(message)),
        receive_(receive),
        posted_at_(s4u::Engine::get_clock()) {}

  comm::Buffer wait() override {
    const AnalyticalNetwork::Phase moved = network_->wait(*message_);
    owner_->account(posted_at_, moved, receive_ ? message_.get() : nullptr);
    if (!receive_) return {};
    return std::move(message_->data);
  }

 private:
  AnalyticalMessages* owner_;
  AnalyticalNetwork* network_;
  std::shared_ptr<AnalyticalNetwork::Message> message_;
  bool receive_;
  double posted_at_;
};

}  // namespace

void AnalyticalMessages::send(int to, comm::Buffer data) {
  static_cast<void>(post_send(to, std::move(data), 0)->wait());
}

comm::Buffer AnalyticalMessages::recv(int from) { return post_recv(from, 0)->wait(); }

comm::Buffer AnalyticalMessages::send_recv(int to, comm::Buffer data, int from) {
  const std::unique_ptr<comm::Pending> sending = post_send(to, std::move(data), 0);
  comm::Buffer received = post_recv(from, 0)->wait();
  static_cast<void>(sending->wait());
  return received;
}

std::vector<comm::Buffer> AnalyticalMessages::exchange(std::span<const int> to, std::vector<comm::Buffer> data,
                                                       std::span<const int> from) {
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

std::unique_ptr<comm::Pending> AnalyticalMessages::post_send(int to, comm::Buffer data, int tag) {
  owner_->check_peer(to, tag);
  if (owner_->mirrored_) throw std::logic_error("a rank standing for others sent a message of its own");
  owner_->meter_.observer().on_sent(owner_->meter_.lane(), comm::wire_bytes(data), 1);
  std::string joint;
  if (!owner_->meeting_.name.empty()) {
    // The n-th message of this channel in every group of the meeting moves together.
    const auto key = (static_cast<std::uint64_t>(to) << 17U) | static_cast<std::uint64_t>(tag);
    joint = fmt::format("{}/{}->{}#{}/{}", owner_->meeting_.name, owner_->rank_, to, tag, joint_messages_[key]++);
  }
  const int groups = owner_->meeting_.name.empty() ? 1 : owner_->meeting_.size / owner_->size_;
  return std::make_unique<AnalyticalPending>(
      *this, *network_,
      network_->post_send(owner_->channel(owner_->rank_, to, tag), owner_->host(owner_->rank_), owner_->host(to),
                          std::move(data), owner_->traffic_, std::move(joint), groups),
      false);
}

std::unique_ptr<comm::Pending> AnalyticalMessages::post_recv(int from, int tag) {
  owner_->check_peer(from, tag);
  return std::make_unique<AnalyticalPending>(*this, *network_,
                                             network_->post_recv(owner_->channel(from, owner_->rank_, tag)), true);
}

std::unique_ptr<MessageInbox> AnalyticalMessages::open_inbox() {
  throw std::logic_error("an inbox of messages timed by the analytical network");
}

void AnalyticalMessages::shift_rounds(int to, int /*from*/, std::size_t elements, int rounds) {
  const int shift = ((to - owner_->rank_) % owner_->size_ + owner_->size_) % owner_->size_;
  time_phase(to, elements, rounds, comm::RingSet{nullptr, true, shift});
}

void AnalyticalMessages::group_rounds(int to, int /*from*/, std::size_t elements, int rounds,
                                      const comm::RingSet& phase) {
  time_phase(to, elements, rounds, phase);
}

void AnalyticalMessages::account(double posted_at, AnalyticalNetwork::Phase moved,
                                 const AnalyticalNetwork::Message* received) {
  if (received != nullptr && owner_->meter_.observer().wants_messages()) {
    owner_->meter_.observer().on_message(network_->host_name(received->from), owner_->meter_.lane(),
                                         {moved.start, moved.end}, received->bytes);
  }
  const double now = s4u::Engine::get_clock();
  const double since = std::max(posted_at, owner_->meter_.accounted_until());
  if (now <= since) return;
  const Span moving{std::clamp(moved.start, since, now), std::clamp(moved.end, since, now)};
  owner_->meter_.observer().on_communication(
      owner_->meter_.lane(), {since, now},
      moving.end > moving.start ? std::span<const Span>(&moving, 1) : std::span<const Span>());
  owner_->meter_.account_until(now);
}

void AnalyticalMessages::time_phase(int to, std::size_t elements, int rounds, const comm::RingSet& ring_set) {
  const double arrived = s4u::Engine::get_clock();
  const double bytes = static_cast<double>(comm::wire_bytes(comm::Buffer::sized(elements)));
  AnalyticalNetwork::Phase phase;
  // Every rank's bytes are counted as the phase starts (see AnalyticalNetwork::enter).
  const bool joined = !owner_->meeting_.name.empty();
  const std::span<const std::vector<int>> groups = owner_->stood_for_;
  if (!groups.empty() && !joined && owner_->entrants_ > 1) {
    // Standing for its groups with other ranks: the last of them to enter times and counts every group.
    phase = network_->meet(owner_->group_, owner_->entrants_, phases_entered_++, [&] {
      if (owner_->traffic_ != nullptr) {
        for (const std::vector<int>& hosts : groups)
          network_->count_for_all(owner_->size_, hosts, ring_set, bytes, rounds);
      }
      return network_->start_for_groups(owner_->size_, groups, ring_set, bytes, rounds);
    });
  } else if (!groups.empty()) {
    // This rank stands for `groups`, its own and others of its kind: one entrant of a meeting for all of them, or
    // each timed alone.
    const int each = owner_->size_ * static_cast<int>(groups.size());
    phase = joined ? network_->enter_for_groups(owner_->meeting_.name, owner_->meeting_.size / each, phases_entered_++,
                                                owner_->meeting_.offset / each, owner_->size_, groups, ring_set, bytes,
                                                rounds)
                   : network_->start_for_groups(owner_->size_, groups, ring_set, bytes, rounds);
  } else if (owner_->mirrored_ && joined) {
    // This rank stands for its group, one of the meeting's groups, each simulated by one rank.
    phase = network_->enter_for_group(owner_->meeting_.name, owner_->meeting_.size / owner_->size_, phases_entered_++,
                                      owner_->meeting_.offset / owner_->size_, owner_->size_, owner_->hosts_, ring_set,
                                      bytes, rounds);
  } else if (owner_->mirrored_) {
    phase = network_->start_for_all(owner_->size_, owner_->hosts_, ring_set, bytes, rounds);
  } else {
    std::vector<AnalyticalNetwork::Send> sends;
    if (ring_set.parallel) {
      for (const int peer : comm::parallel_ring_peers(ring_set, owner_->rank_).to)
        sends.push_back({owner_->host(owner_->rank_), owner_->host(peer), bytes});
    } else {
      sends.push_back({owner_->host(owner_->rank_), owner_->host(to), bytes});
    }
    phase =
        network_->enter(joined ? owner_->meeting_.name : owner_->group_, joined ? owner_->meeting_.size : owner_->size_,
                        phases_entered_++, owner_->meeting_.offset + owner_->rank_, sends, rounds, owner_->traffic_);
  }
  if (owner_->mirrored_ && owner_->traffic_ != nullptr && (groups.empty() || joined || owner_->entrants_ == 1)) {
    if (groups.empty()) network_->count_for_all(owner_->size_, owner_->hosts_, ring_set, bytes, rounds);
    for (const std::vector<int>& hosts : groups) network_->count_for_all(owner_->size_, hosts, ring_set, bytes, rounds);
  }
  const int messages = rounds * (ring_set.parallel ? static_cast<int>(ring_set.rings->size()) : 1);
  owner_->meter_.observer().on_sent(owner_->meter_.lane(), bytes * messages, messages);
  wait_for_phase(arrived, phase);
}

void AnalyticalMessages::run_steps(std::span<const comm::Step> steps) {
  const double arrived = s4u::Engine::get_clock();
  const auto bytes_per_element = static_cast<double>(comm::wire_bytes(comm::Buffer::sized(1)));
  double bytes = 0.0;
  std::int64_t messages = 0;
  for (const comm::Step& step : steps) {
    bytes += static_cast<double>(step.elements_sent()) * bytes_per_element;
    messages += static_cast<std::int64_t>(step.to.size());
  }
  AnalyticalNetwork::Phase phase;
  if (owner_->mirrored_) {
    phase = steps_for_all(steps, bytes_per_element);
  } else if (owner_->meeting_.name.empty()) {
    phase = network_->enter_steps(owner_->group_, owner_->size_, phases_entered_++, owner_->rank_,
                                  owner_->host(owner_->rank_), steps, bytes_per_element, owner_->traffic_);
  } else {
    // Peers by rank in the meeting.
    std::vector<comm::Step> shifted(steps.begin(), steps.end());
    for (comm::Step& step : shifted) {
      for (int& peer : step.to) peer += owner_->meeting_.offset;
      for (int& peer : step.from) peer += owner_->meeting_.offset;
    }
    phase = network_->enter_steps(owner_->meeting_.name, owner_->meeting_.size, phases_entered_++,
                                  owner_->meeting_.offset + owner_->rank_, owner_->host(owner_->rank_), shifted,
                                  bytes_per_element, owner_->traffic_);
  }
  if (messages > 0) owner_->meter_.observer().on_sent(owner_->meter_.lane(), bytes, messages);
  wait_for_phase(arrived, phase);
}

AnalyticalNetwork::Phase AnalyticalMessages::steps_for_all(std::span<const comm::Step> steps,
                                                           double bytes_per_element) {
  // The other ranks' steps are good for this collective only.
  const S4uTransport::StepsOf steps_of = std::exchange(owner_->steps_of_others_, {});
  if (!steps_of || owner_->stood_for_.empty()) {
    throw std::logic_error("a rank standing for others ran steps that do not say where the others send");
  }
  std::vector<std::vector<comm::Step>> every(static_cast<std::size_t>(owner_->size_));
  for (int rank = 0; rank < owner_->size_; ++rank) {
    every[static_cast<std::size_t>(rank)] =
        rank == owner_->rank_ ? std::vector<comm::Step>(steps.begin(), steps.end()) : steps_of(rank);
  }
  if (owner_->entrants_ == 1)
    return network_->steps_for_groups(owner_->stood_for_, every, bytes_per_element, owner_->traffic_);
  // Standing for its groups with other ranks: the last of them to enter times and counts every group.
  return network_->meet(owner_->group_, owner_->entrants_, phases_entered_++, [&] {
    return network_->steps_for_groups(owner_->stood_for_, every, bytes_per_element, owner_->traffic_);
  });
}

void AnalyticalMessages::wait_for_phase(double arrived, AnalyticalNetwork::Phase phase) {
  phase = network_->finished(std::move(phase));
  const double since = std::max(arrived, owner_->meter_.accounted_until());
  if (phase.end > since) {
    const Span moving{std::max(phase.start, since), phase.end};
    owner_->meter_.observer().on_communication(owner_->meter_.lane(), {since, phase.end},
                                               std::span<const Span>(&moving, 1));
    owner_->meter_.account_until(phase.end);
  }
}

}  // namespace dtsim::runtime
