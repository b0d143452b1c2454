#pragma once
// One parameter-server shard at work: its slice of the parameters and optimizer state, what it knows of
// each worker, and what it does with each message. The strategy decides how (by clock or on arrival, the
// staleness bound, the learning-rate factor); the shard applies, replies and keeps count.

#include "models/optimizer.hpp"
#include "sim/comm/payload.hpp"
#include "sim/runtime/context/training_context.hpp"
#include "sim/runtime/network/message_inbox.hpp"
#include "sim/runtime/network/s4u_transport.hpp"
#include "sim/runtime/recovery/shard_recovery.hpp"

#include <simgrid/s4u/Exec.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace dtsim::runtime {

/// The transport group of a parameter-server run: workers by rank, then the shards' servers.
inline constexpr const char* kParameterServerGroup = "parameter_server";

class ServerShard {
 public:
  /// Shard `shard` of the run `context` describes (which must outlive it); posts a receive for every worker.
  ServerShard(const TrainingContext& context, int shard);
  ServerShard(const ServerShard&) = delete;
  ServerShard& operator=(const ServerShard&) = delete;

  /// Serves until every worker has sent its last gradient or left, then waits for its background updates
  /// and its last replies.
  void serve();

 private:
  struct Clock {
    std::vector<comm::Buffer> gradients;  ///< by worker; empty for a worker that left before the clock
    std::size_t arrived = 0;
  };
  struct Scaled {
    comm::Buffer gradient;
    double scale = 1.0;  ///< on the learning rate
  };
  struct Combined {
    comm::Buffer gradient;
    double rate_scale = 1.0;
  };

  /// The next message's sender and contents; nullopt when no worker has more to send.
  std::optional<Arrival> next_message();
  void on_leave(std::size_t worker);
  /// Apply on arrival: the gradient joins those gathered, which make an update once `accumulate` are in.
  void on_arrival(std::size_t worker, comm::Buffer gradient);
  /// Apply by clock: the gradient waits for its clock's others; complete clocks are applied in order.
  void on_clock(std::size_t worker, comm::Buffer gradient, std::int64_t clock);
  /// Applies the clocks that are complete, then replies to the waiting workers that may go on: every one of
  /// them after a clock completed, otherwise only `arrived` (the others' bound has not moved).
  void complete_clocks(std::optional<std::size_t> arrived);
  void apply(const comm::Buffer& gradient, double extra_flops, double rate_scale = 1.0);
  void apply_gathered();
  Combined combine();
  /// The step a copy of the optimizer, in the same state, takes with `gradient` at the plain learning rate:
  /// the measure against which observers that ask for it get the factor an update really applied.
  [[nodiscard]] models::Parameters plain_step(const comm::Buffer& gradient) const;
  /// Sends the worker the shard's parameters.
  void reply(std::size_t worker);
  void send_reply(std::size_t worker, comm::Buffer contents);
  [[nodiscard]] bool may_go_on(std::size_t worker) const;
  [[nodiscard]] std::size_t expected(std::int64_t clock) const;
  void collect_finished();
  void finish();

  const TrainingContext& context_;
  const TrainingSetup& setup_;
  const sync::SyncStrategy& strategy_;
  const std::size_t workers_;
  const Meter meter_;
  /// Lock-free updates run beside the server's actor, overlapping each other: a lane of their own.
  const Meter updates_meter_;
  S4uTransport transport_;
  models::Parameters parameters_;
  double count_;  ///< parameters in the shard
  std::unique_ptr<models::Optimizer> optimizer_;
  ShardRecovery recovery_;
  /// Staleness and update counts are recorded by the first shard's server; the others see the same.
  const bool records_;
  /// Lock-free (Hogwild) on arrival: an update's values take effect at once and its time passes in the
  /// background, so the reply and the next arrivals do not wait for it; concurrent updates share the
  /// server's processor. Under a lock (and by clock) the server computes each update before anything else.
  const bool lock_free_;

  std::int64_t version_ = 0;               ///< complete clocks (by clock) or applied updates (on arrival)
  std::vector<std::int64_t> pushed_;       ///< gradients received from each worker
  std::vector<std::int64_t> read_version_; ///< the version each worker's parameters have
  std::set<std::size_t> deferred_;         ///< workers whose reply waits for the staleness bound
  std::vector<std::size_t> left_;          ///< workers that died for good
  std::map<std::int64_t, Clock> by_clock_;
  std::vector<Scaled> gathered_;           ///< on arrival: gradients waiting to make up one update
  /// A worker that has pushed k gradients may compute its next once every clock up to k - bound is applied.
  int bound_;
  bool someone_waited_ = false;  ///< since the last complete clock
  /// One receive open from each worker that has more to send, and the replies.
  std::unique_ptr<MessageInbox> inbox_;
  /// Lock-free updates still running, oldest first.
  std::deque<simgrid::s4u::ExecPtr> updating_;
};

}  // namespace dtsim::runtime
