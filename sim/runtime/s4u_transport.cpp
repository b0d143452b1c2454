#include "sim/runtime/s4u_transport.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>

namespace dtsim::runtime {
namespace s4u = simgrid::s4u;

S4uTransport::S4uTransport(std::string group, int rank, int size, metrics::HostActivity& activity,
                           const PhaseShortcut* shortcut)
    : group_(std::move(group)),
      rank_(rank),
      size_(size),
      activity_(&activity),
      shortcut_(shortcut) {}

s4u::Mailbox* S4uTransport::outgoing(int to) {
  if (to < 0 || to >= size_) throw std::out_of_range(fmt::format("rank {} of {}", to, size_));
  s4u::Mailbox*& slot = outgoing_[to];
  if (slot == nullptr) slot = s4u::Mailbox::by_name(fmt::format("{}/{}->{}", group_, rank_, to));
  return slot;
}

s4u::Mailbox* S4uTransport::incoming(int from) {
  if (from < 0 || from >= size_) throw std::out_of_range(fmt::format("rank {} of {}", from, size_));
  s4u::Mailbox*& slot = incoming_[from];
  if (slot == nullptr) slot = s4u::Mailbox::by_name(fmt::format("{}/{}->{}", group_, from, rank_));
  return slot;
}

s4u::CommPtr S4uTransport::post_send(int to, comm::Buffer data) {
  const auto bytes = static_cast<std::uint64_t>(comm::wire_bytes(data));
  activity_->bytes_sent += static_cast<double>(bytes);
  activity_->messages_sent += 1;
  auto payload = std::make_unique<comm::Buffer>(std::move(data));
  s4u::CommPtr comm = outgoing(to)->put_async(payload.get(), bytes);
  // The receiver takes ownership once the transfer completes.
  static_cast<void>(payload.release());
  return comm;
}

void S4uTransport::account(double posted_at, const std::vector<s4u::CommPtr>& comms) {
  const double now = s4u::Engine::get_clock();
  // Communication time is the union of the transfers' [start, finish] intervals; the rest of the call
  // was spent waiting for peers.
  std::vector<std::pair<double, double>> intervals;
  intervals.reserve(comms.size());
  for (const auto& comm : comms) intervals.emplace_back(comm->get_start_time(), comm->get_finish_time());
  std::sort(intervals.begin(), intervals.end());
  double busy = 0.0;
  double covered_until = posted_at;
  for (const auto& [start, finish] : intervals) {
    const double from = std::max(start, covered_until);
    if (finish > from) {
      busy += finish - from;
      covered_until = finish;
    }
  }
  activity_->communication_s += busy;
  activity_->wait_s += std::max(0.0, now - posted_at - busy);
}

void S4uTransport::send(int to, comm::Buffer data) {
  const double posted_at = s4u::Engine::get_clock();
  s4u::CommPtr comm = post_send(to, std::move(data));
  comm->wait();
  account(posted_at, {comm});
}

comm::Buffer S4uTransport::recv(int from) {
  const double posted_at = s4u::Engine::get_clock();
  comm::Buffer* payload = nullptr;
  s4u::CommPtr comm = incoming(from)->get_async<comm::Buffer>(&payload);
  comm->wait();
  account(posted_at, {comm});
  return std::move(*std::unique_ptr<comm::Buffer>(payload));
}

comm::Buffer S4uTransport::send_recv(int to, comm::Buffer data, int from) {
  const double posted_at = s4u::Engine::get_clock();
  s4u::CommPtr sending = post_send(to, std::move(data));
  comm::Buffer* payload = nullptr;
  s4u::CommPtr receiving = incoming(from)->get_async<comm::Buffer>(&payload);
  receiving->wait();
  sending->wait();
  account(posted_at, {sending, receiving});
  return std::move(*std::unique_ptr<comm::Buffer>(payload));
}

std::vector<comm::Buffer> S4uTransport::recv_from_each(std::span<const int> from) { return exchange({}, {}, from); }

std::vector<comm::Buffer> S4uTransport::exchange(std::span<const int> to, std::vector<comm::Buffer> data,
                                                 std::span<const int> from) {
  const double posted_at = s4u::Engine::get_clock();
  std::vector<s4u::CommPtr> comms;
  comms.reserve(to.size() + from.size());
  for (std::size_t i = 0; i < to.size(); ++i) comms.push_back(post_send(to[i], std::move(data[i])));
  std::vector<comm::Buffer*> payloads(from.size(), nullptr);
  for (std::size_t i = 0; i < from.size(); ++i) comms.push_back(incoming(from[i])->get_async<comm::Buffer>(&payloads[i]));
  for (const auto& comm : comms) comm->wait();
  account(posted_at, comms);
  std::vector<comm::Buffer> out;
  out.reserve(from.size());
  for (comm::Buffer* payload : payloads) out.push_back(std::move(*std::unique_ptr<comm::Buffer>(payload)));
  return out;
}

void S4uTransport::shift_rounds(int to, int from, std::size_t elements, int rounds) {
  const int shift = ((to - rank_) % size_ + size_) % size_;
  const bool mirrored = ((rank_ - from) % size_ + size_) % size_ == shift;
  if (rounds < 3 || shortcut_ == nullptr || !mirrored || !shortcut_->applies(shift)) {
    comm::Transport::shift_rounds(to, from, elements, rounds);
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
    s4u::this_actor::sleep_for(pause);
    activity_->communication_s += pause;
  }
  // Count the messages the rounds would have sent one by one.
  activity_->messages_sent += rounds - 2;
}

void S4uTransport::send_to_each(std::span<const int> to, std::vector<comm::Buffer> data) {
  exchange(to, std::move(data), {});
}

}  // namespace dtsim::runtime
