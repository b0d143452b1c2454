#include "sim/runtime/network/simgrid_messages.hpp"

#include "sim/runtime/network/simgrid_inbox.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>

namespace dtsim::runtime {
namespace s4u = simgrid::s4u;
namespace {

/// A posted message; wait() books its time on the transport that posted it.
class S4uPending final : public comm::Pending {
 public:
  S4uPending(SimGridMessages& owner, s4u::CommPtr comm, std::unique_ptr<comm::Buffer*> payload)
      : owner_(&owner), comm_(std::move(comm)), payload_(std::move(payload)), posted_at_(s4u::Engine::get_clock()) {}

  [[nodiscard]] const s4u::CommPtr& comm() const { return comm_; }
  [[nodiscard]] double posted_at() const { return posted_at_; }

  [[nodiscard]] bool completed_before_now() const override {
    // SimGrid sets a transfer's finish time when it ends; both ends are woken at that instant, so once the clock
    // has moved on the receiver has taken the message.
    const double finished = comm_->get_finish_time();
    return finished >= 0.0 && finished < s4u::Engine::get_clock();
  }

  comm::Buffer wait() override {
    comm_->wait();
    owner_->account(posted_at_, {comm_});
    if (!payload_) return {};
    return std::move(*std::unique_ptr<comm::Buffer>(*payload_));
  }

 private:
  SimGridMessages* owner_;
  s4u::CommPtr comm_;
  // For a receive: where SimGrid stores the pointer to the arriving message (stable across moves).
  std::unique_ptr<comm::Buffer*> payload_;
  double posted_at_;
};

}  // namespace

s4u::Mailbox* SimGridMessages::mailbox(int from, int to, int tag) {
  const int peer = from == owner_->rank_ ? to : from;
  owner_->check_peer(peer, tag);
  const std::uint64_t key = (static_cast<std::uint64_t>(peer) << 17U) | (static_cast<std::uint64_t>(tag) << 1U) |
                            (from == owner_->rank_ ? 1U : 0U);
  s4u::Mailbox*& slot = mailboxes_[key];
  if (slot == nullptr) slot = s4u::Mailbox::by_name(owner_->channel(from, to, tag));
  return slot;
}

s4u::CommPtr SimGridMessages::start_send(int to, comm::Buffer data, int tag) {
  const auto bytes = static_cast<std::uint64_t>(comm::wire_bytes(data));
  owner_->meter_.observer().on_sent(owner_->meter_.lane(), static_cast<double>(bytes), 1);
  if (owner_->traffic_ != nullptr) {
    owner_->traffic_->add(owner_->host(owner_->rank_), owner_->host(to), static_cast<double>(bytes));
  }
  auto payload = std::make_unique<comm::Buffer>(std::move(data));
  s4u::CommPtr comm = mailbox(owner_->rank_, to, tag)->put_async(payload.get(), bytes);
  // The receiver takes ownership once the transfer completes.
  static_cast<void>(payload.release());
  return comm;
}

s4u::CommPtr SimGridMessages::start_recv(int from, comm::Buffer** payload, int tag) {
  return mailbox(from, owner_->rank_, tag)->get_async<comm::Buffer>(payload);
}

void SimGridMessages::account(double posted_at, const std::vector<s4u::CommPtr>& comms) {
  // Messages first: several may complete at one instant, after the first has accounted for it.
  if (owner_->meter_.observer().wants_messages()) report_messages(comms);
  const double now = s4u::Engine::get_clock();
  const double since = std::max(posted_at, owner_->meter_.accounted_until());
  if (now <= since) return;
  // Communication time is the union of the transfers' [start, finish] intervals within [since, now]; the
  // rest was spent waiting for peers.
  std::vector<Span> transfers;
  transfers.reserve(comms.size());
  for (const auto& comm : comms) transfers.push_back({comm->get_start_time(), comm->get_finish_time()});
  owner_->meter_.observer().on_communication(owner_->meter_.lane(), {since, now},
                                             disjoint_union(std::move(transfers), {since, now}));
  owner_->meter_.account_until(now);
}

void SimGridMessages::report_messages(const std::vector<s4u::CommPtr>& comms) {
  // A receive is the side that knows both ends: the sender's actor, and the payload with its size. A
  // message waited for twice (wait_any, then wait) is reported once: the first report marks it.
  static const char reported = 0;
  for (const auto& comm : comms) {
    auto* const* received = static_cast<comm::Buffer* const*>(comm->get_dst_data());
    if (received == nullptr || *received == nullptr || comm->get_sender() == nullptr) continue;
    if (comm->get_data<const char>() == &reported) continue;
    comm->set_data(const_cast<char*>(&reported));  // SimGrid's data slot is untyped; only compared here
    owner_->meter_.observer().on_message(comm->get_sender()->get_host()->get_name(), owner_->meter_.lane(),
                                         {comm->get_start_time(), comm->get_finish_time()},
                                         comm::wire_bytes(**received));
  }
}

void SimGridMessages::send(int to, comm::Buffer data) {
  const double posted_at = s4u::Engine::get_clock();
  s4u::CommPtr comm = start_send(to, std::move(data));
  comm->wait();
  account(posted_at, {comm});
}

comm::Buffer SimGridMessages::recv(int from) {
  const double posted_at = s4u::Engine::get_clock();
  comm::Buffer* payload = nullptr;
  s4u::CommPtr comm = start_recv(from, &payload);
  comm->wait();
  account(posted_at, {comm});
  return std::move(*std::unique_ptr<comm::Buffer>(payload));
}

comm::Buffer SimGridMessages::send_recv(int to, comm::Buffer data, int from) {
  const double posted_at = s4u::Engine::get_clock();
  s4u::CommPtr sending = start_send(to, std::move(data));
  comm::Buffer* payload = nullptr;
  s4u::CommPtr receiving = start_recv(from, &payload);
  receiving->wait();
  sending->wait();
  account(posted_at, {sending, receiving});
  return std::move(*std::unique_ptr<comm::Buffer>(payload));
}

std::vector<comm::Buffer> SimGridMessages::exchange(std::span<const int> to, std::vector<comm::Buffer> data,
                                                    std::span<const int> from) {
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

std::unique_ptr<comm::Pending> SimGridMessages::post_send(int to, comm::Buffer data, int tag) {
  return std::make_unique<S4uPending>(*this, start_send(to, std::move(data), tag), nullptr);
}

std::unique_ptr<comm::Pending> SimGridMessages::post_recv(int from, int tag) {
  auto payload = std::make_unique<comm::Buffer*>(nullptr);
  s4u::CommPtr comm = start_recv(from, payload.get(), tag);
  return std::make_unique<S4uPending>(*this, std::move(comm), std::move(payload));
}

std::unique_ptr<MessageInbox> SimGridMessages::open_inbox() {
  return std::make_unique<SimGridInbox>(*this, owner_->size_);
}

void SimGridMessages::shift_rounds(int to, int from, std::size_t elements, int rounds) {
  const int shift = ((to - owner_->rank_) % owner_->size_ + owner_->size_) % owner_->size_;
  const bool mirrored = ((owner_->rank_ - from) % owner_->size_ + owner_->size_) % owner_->size_ == shift;
  if (rounds < 3 || owner_->shortcut_ == nullptr || !mirrored || !owner_->shortcut_->applies(shift)) {
    owner_->comm::Transport::group_rounds(to, from, elements, rounds, comm::RingSet{nullptr, true, shift});
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
    owner_->meter_.account_until(span.end);
    owner_->meter_.observer().on_communication(owner_->meter_.lane(), span, std::span<const Span>(&span, 1));
  }
  // Count the messages the rounds would have sent one by one.
  owner_->meter_.observer().on_sent(owner_->meter_.lane(), 0.0, rounds - 2);
}

}  // namespace dtsim::runtime
