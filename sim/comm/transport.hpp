#pragma once
// The seam between communication algorithms and the simulator. Collectives and the parameter-server
// protocol are straight-line code over this interface; the runtime implements it with SimGrid mailboxes,
// tests with threads and queues.

#include "sim/comm/payload.hpp"

#include <any>
#include <memory>
#include <span>
#include <vector>

namespace dtsim::comm {

class ValueMeeting;

/// Where every rank of a transport sends in one ring phase, so that a transport may time the phase for all
/// of them from any one: the rings the ranks form (each a list of the transport's ranks, together every
/// rank once), each rank sending to the rank `shift` places after it in its own ring. With `parallel`, the
/// rings run side by side instead, each holding every rank (a library's channels): each rank sends to the
/// rank `shift` places after it in every ring.
struct RingSet {
  using Rings = std::vector<std::shared_ptr<const std::vector<int>>>;
  /// The rings; null with `all_ranks` false: the phase is not known beyond the caller's own part.
  std::shared_ptr<const Rings> rings;
  /// One ring of all the transport's ranks in rank order (`rings` is then null).
  bool all_ranks = false;
  int shift = 1;
  bool parallel = false;
  /// With `parallel`: each rank's place in each ring (places[ring][rank]), so that a rank finds its peers
  /// without searching the rings (ring_places()).
  std::shared_ptr<const std::vector<std::vector<int>>> places = nullptr;

  [[nodiscard]] bool known() const { return all_ranks || rings != nullptr; }
};

/// Under parallel rings, the ranks `rank` sends to (`shift` places on in each ring) and receives from (as many
/// places back), ring by ring.
struct RingPeers {
  std::vector<int> to;
  std::vector<int> from;
};
[[nodiscard]] RingPeers parallel_ring_peers(const RingSet& phase, int rank);
/// Each rank's place in each of `rings`, each ring holding every rank of `ranks` once: RingSet::places.
[[nodiscard]] std::shared_ptr<const std::vector<std::vector<int>>> ring_places(const RingSet::Rings& rings, int ranks);

/// One step of a timing-only collective, for one rank: it sends `elements` floats to each rank in `to` (or,
/// with `sizes`, sizes[i] to to[i]: an exchange of uneven pieces) while receiving what each rank in `from` sends
/// it, all at once (either list may be empty).
struct Step {
  std::vector<int> to;
  std::vector<int> from;
  std::size_t elements = 0;
  std::vector<std::size_t> sizes{};

  /// The floats sent to to[i].
  [[nodiscard]] std::size_t elements_to(std::size_t i) const { return sizes.empty() ? elements : sizes[i]; }
  /// The floats sent to every rank of `to`.
  [[nodiscard]] std::size_t elements_sent() const;
};

/// A message posted without waiting for it: wait() blocks until it is complete. Every posted message must
/// be waited for before the collective returns.
class Pending {
 public:
  virtual ~Pending() = default;
  /// For a receive, the message; for a send, an empty buffer.
  virtual Buffer wait() = 0;
  /// Whether the message completed at an earlier instant than now, so that wait() returns at once and every
  /// party to it has already seen it end. False where a transport cannot tell without waiting.
  [[nodiscard]] virtual bool completed_before_now() const { return false; }
};

/// Point-to-point messaging among `size()` ranks; this endpoint is `rank()`.
class Transport {
 public:
  virtual ~Transport() = default;

  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  /// The machine (multi-device node) of each rank, by rank; empty when every rank is a machine of its own.
  [[nodiscard]] virtual std::span<const int> machines() const { return {}; }
  /// Returns once `to` has received the whole message.
  virtual void send(int to, Buffer data) = 0;
  /// Returns once a message from `from` has arrived.
  virtual Buffer recv(int from) = 0;
  /// Sends to `to` while receiving from `from`; returns once both are done.
  virtual Buffer send_recv(int to, Buffer data, int from) = 0;
  /// Receives one message from each rank in `from`, all at once; results in the order of `from`.
  virtual std::vector<Buffer> recv_from_each(std::span<const int> from) = 0;
  /// Sends `data[i]` to `to[i]` for every i, all at once; returns once all are delivered.
  virtual void send_to_each(std::span<const int> to, std::vector<Buffer> data) = 0;
  /// Sends `data[i]` to `to[i]` and receives one message from each rank in `from`, all at once; returns
  /// once everything has arrived. Results in the order of `from`.
  virtual std::vector<Buffer> exchange(std::span<const int> to, std::vector<Buffer> data, std::span<const int> from) = 0;

  /// Starts sending `data` to `to` on channel `tag` (0 to 65535) and returns at once. Messages between
  /// two ranks on one channel arrive in order; different channels never match each other's receives, so
  /// that independent schedules running at the same time (the two trees of a double binary tree) cannot
  /// take each other's messages.
  virtual std::unique_ptr<Pending> post_send(int to, Buffer data, int tag) = 0;
  /// Starts receiving the next message from `from` on channel `tag` and returns at once.
  virtual std::unique_ptr<Pending> post_recv(int from, int tag) = 0;

  /// A timing-only phase of `rounds` rounds, each sending `elements` floats to `to` while receiving as many
  /// from `from`; a round starts when this rank's previous one is done. Every rank of the group calls it at
  /// the same moment with the same `elements` and `rounds`, `to` and `from` being rank + d and rank - d for
  /// one shift d (as a ring phase does): that lets a transport replace the rounds with fewer transfers where
  /// it can prove the rounds take identical times. This default runs the rounds one by one.
  virtual void shift_rounds(int to, int from, std::size_t elements, int rounds) {
    group_rounds(to, from, elements, rounds, RingSet{nullptr, true, ((to - rank()) % size() + size()) % size()});
  }
  /// shift_rounds() of a subgroup (GroupTransport), in this transport's ranks: the phase is this rank's part
  /// of one that every rank of this transport enters at the same place in its sequence of phases (all the
  /// subgroups of a hierarchical allreduce run theirs at once), but the shift is the subgroup's. `phase`
  /// says, where the caller knows it, what every rank of this transport sends in it. This default runs the
  /// rounds one by one.
  /// Parallel rings (`phase.parallel`): each round sends `elements` on every ring.
  virtual void group_rounds(int to, int from, std::size_t elements, int rounds, const RingSet& phase) {
    if (phase.parallel) {
      const RingPeers peers = parallel_ring_peers(phase, rank());
      for (int round = 0; round < rounds; ++round) {
        static_cast<void>(exchange(peers.to, std::vector<Buffer>(peers.to.size(), Buffer::sized(elements)), peers.from));
      }
      return;
    }
    for (int round = 0; round < rounds; ++round) static_cast<void>(send_recv(to, Buffer::sized(elements), from));
  }
  /// A timing-only collective as this rank's steps, each starting when its previous one is done. Every rank
  /// of the transport calls it at the same place with its own steps, so that a transport may time the whole
  /// collective for the group at once (times_phases_at_once()). This default exchanges the messages step
  /// by step.
  virtual void run_steps(std::span<const Step> steps) {
    for (const Step& step : steps) {
      if (step.to.empty() && step.from.empty()) continue;
      std::vector<Buffer> pieces;
      pieces.reserve(step.to.size());
      for (std::size_t i = 0; i < step.to.size(); ++i) pieces.push_back(Buffer::sized(step.elements_to(i)));
      static_cast<void>(exchange(step.to, std::move(pieces), step.from));
    }
  }
  /// Whether shift_rounds() takes a phase's rounds at once whatever their chunk size: a timing-only phase
  /// then passes its largest chunk rather than sending chunks that differ by one element one by one.
  [[nodiscard]] virtual bool times_phases_at_once() const { return false; }

  /// The simulated time now, in seconds; a transport without a clock (threads in tests) stays at 0.
  [[nodiscard]] virtual double now() const { return 0.0; }
  /// The network's latency from this rank to `peer` (an empty message on an idle network: its route's link
  /// latencies), where the transport knows the routes; 0 where it does not.
  [[nodiscard]] virtual double latency_to(int peer) const {
    static_cast<void>(peer);
    return 0.0;
  }
  /// Spends `seconds` of this rank's simulated time as communication that moves no bytes: what a
  /// communication library adds to the network's time (comm::LibraryCollective). No-op without a clock.
  virtual void spend(double seconds) { static_cast<void>(seconds); }

  /// Where this group's ranks meet to compute a collective's values apart from its messages (values_apart.hpp);
  /// null: every value goes by message.
  [[nodiscard]] virtual ValueMeeting* value_meeting() { return nullptr; }

  /// Where a collective keeps what it derives from machines() (the hierarchical allreduce: which ranks
  /// share a node), so as to derive it once per transport; emptied whenever machines() changes.
  [[nodiscard]] std::any& placement_scratch() { return placement_scratch_; }

 protected:
  void forget_placement_scratch() { placement_scratch_.reset(); }

 private:
  std::any placement_scratch_;
};

}  // namespace dtsim::comm
