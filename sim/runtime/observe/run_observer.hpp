#pragma once
// What a run measures reaches observers as events: each actor's compute, communication and waiting spans
// (compute from SimGrid's completion signal, see compute_spans.hpp; communication from the transport), the bytes
// it sends, the staleness of gradients, the updates applied, pushes, evaluations, failures, checkpoints
// and link changes. The run's record is one observer (RunRecorder); a timeline or a test is another. The
// actors only report; none of them writes the record.

#include "sim/metrics/run_record.hpp"
#include "sim/metrics/timeline.hpp"
#include "sim/topology/link_traffic.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace dtsim::runtime {

using metrics::Traffic;

/// One actor's timeline on a host (workers by rank, then servers): its main actor (0) or a helper beside it
/// (1: a stale-synchronous worker's averaging actor, a lock-free server's background updates).
/// A `concurrent` lane's activities may overlap; its time is the union of their spans.
struct Lane {
  int host = 0;
  int actor = 0;
  bool concurrent = false;
  /// Its communication runs beside the host's main actor (a gradient stream overlapping the backward pass):
  /// counted as the host's overlapped_communication_s; the main actor reports the part it waits for.
  bool overlapped = false;
  /// What its communication carries now (a transport's label).
  Traffic traffic = Traffic::Data;
};

/// [start, end], simulated seconds.
struct Span {
  double start = 0.0;
  double end = 0.0;
};

/// The union of `spans` within `within`, as disjoint spans in time order (a span starting where another
/// ends stays separate).
std::vector<Span> disjoint_union(std::vector<Span> spans, Span within);

class RunObserver {
 public:
  virtual ~RunObserver() = default;

  /// `lane` executed FLOPs over `span`.
  virtual void on_compute(Lane /*lane*/, Span /*span*/) {}
  /// `lane` was blocked in a send or receive over `blocked`; its messages were moving during `moving`
  /// (disjoint, in time order, within `blocked`), and the rest of the time it waited for a peer.
  virtual void on_communication(Lane /*lane*/, Span /*blocked*/, std::span<const Span> /*moving*/) {}
  /// `lane` waited over `span` for something other than a message (a staleness bound).
  virtual void on_wait(Lane /*lane*/, Span /*span*/) {}
  /// `lane` sent `messages` messages of `bytes` in all.
  virtual void on_sent(Lane /*lane*/, double /*bytes*/, std::int64_t /*messages*/) {}
  /// `lane`'s actor ended: nothing more comes from it.
  virtual void on_lane_done(Lane /*lane*/) {}
  /// A message of `bytes` from a host named `from_host` reached `to`, moving over `transfer`. Called only
  /// when wants_messages() says so: finding the sender costs a lookup per message.
  virtual void on_message(std::string_view /*from_host*/, Lane /*to*/, Span /*transfer*/, double /*bytes*/) {}
  [[nodiscard]] virtual bool wants_messages() const { return false; }
  /// Worker 0 finished iteration `iteration` at `at_s` (after a rollback, an iteration may come again);
  /// `traffic` holds every link's bytes so far.
  virtual void on_iteration(std::int64_t /*iteration*/, double /*at_s*/, const topology::LinkTraffic& /*traffic*/) {}

  /// A gradient went into an update `staleness` behind: by clock, the clocks between the parameters it was
  /// computed on and its own clock; on arrival, the updates applied since its worker read its parameters.
  /// Once per gradient (the first shard's count, which every shard shares).
  virtual void on_gradient_staleness(std::int64_t /*staleness*/) {}
  /// An update was applied to the model (once per update, not per shard).
  virtual void on_update() {}
  /// Approximate synchronous: `worker` decided to push the update it held for `delay` steps, whose norm over
  /// the parameters' norm is `relative`; `last` for the final push, sent whatever its size.
  virtual void on_push(int /*worker*/, double /*relative*/, std::int64_t /*delay*/, bool /*last*/) {}
  /// On arrival, one gradient per update (first shard): its staleness, and the factor on the learning rate the
  /// update really applied (its step over the step the same optimizer takes at the plain rate). Called only
  /// when measures_updates() says so: measuring copies the optimizer for every update.
  virtual void on_update_measured(std::int64_t /*staleness*/, double /*rate_factor*/) {}
  [[nodiscard]] virtual bool measures_updates() const { return false; }
  /// An evaluation of worker 0's parameters. Its bytes_sent is left to the observer that counts bytes.
  virtual void on_evaluation(const metrics::EvaluationRow& /*row*/) {}
  /// Worker 0's parameters after the last iteration.
  virtual void on_final_parameters(std::span<const float> /*parameters*/) {}

  /// A worker or server shard failed (see FailureRecord).
  virtual void on_failure(const metrics::FailureRecord& /*failure*/) {}
  /// A checkpoint was written from `at_s`, for `write_s` seconds.
  virtual void on_checkpoint(double /*at_s*/, double /*write_s*/) {}
  /// Link `link` went down (or came back) at `at_s`.
  virtual void on_link_change(std::string_view /*link*/, double /*at_s*/, bool /*down*/) {}
  /// A failed link cut the hosts in two: the job stops.
  virtual void on_partition(const metrics::Partition& /*partition*/) {}
  /// Every worker has failed for good (an elastic job's last one): the job stopped at `at_s`.
  virtual void on_job_lost(double /*at_s*/) {}
  /// Parameter-server runs with failures, at the end: the gradients the first shard received from each worker.
  virtual void on_gradients_received(std::span<const std::int64_t> /*by_worker*/) {}
};

/// Several observers as one: every event goes to each, in the order they were added.
class ObserverList final : public RunObserver {
 public:
  void add(RunObserver& observer) { observers_.push_back(&observer); }

  void on_compute(Lane lane, Span span) override;
  void on_communication(Lane lane, Span blocked, std::span<const Span> moving) override;
  void on_wait(Lane lane, Span span) override;
  void on_sent(Lane lane, double bytes, std::int64_t messages) override;
  void on_lane_done(Lane lane) override;
  void on_message(std::string_view from_host, Lane to, Span transfer, double bytes) override;
  [[nodiscard]] bool wants_messages() const override;
  void on_iteration(std::int64_t iteration, double at_s, const topology::LinkTraffic& traffic) override;
  void on_gradient_staleness(std::int64_t staleness) override;
  void on_update() override;
  void on_push(int worker, double relative, std::int64_t delay, bool last) override;
  void on_update_measured(std::int64_t staleness, double rate_factor) override;
  [[nodiscard]] bool measures_updates() const override;
  void on_evaluation(const metrics::EvaluationRow& row) override;
  void on_final_parameters(std::span<const float> parameters) override;
  void on_failure(const metrics::FailureRecord& failure) override;
  void on_checkpoint(double at_s, double write_s) override;
  void on_link_change(std::string_view link, double at_s, bool down) override;
  void on_partition(const metrics::Partition& partition) override;
  void on_job_lost(double at_s) override;
  void on_gradients_received(std::span<const std::int64_t> by_worker) override;

 private:
  std::vector<RunObserver*> observers_;
};

/// One actor's handle for reporting: the run's observers, the actor's lane, and how far the lane's time is
/// accounted for. Copies (one per transport of the actor) share that mark, so that a span never covers
/// time the lane already reported: a server that computes while its receives are posted does not count
/// that time again as waiting.
class Meter {
 public:
  Meter(RunObserver& observer, Lane lane)
      : observer_(&observer), lane_(lane), accounted_until_(std::make_shared<double>(0.0)) {}
  [[nodiscard]] RunObserver& observer() const { return *observer_; }
  [[nodiscard]] Lane lane() const { return lane_; }
  /// The same lane and timeline, its communication labelled as carrying `traffic`.
  [[nodiscard]] Meter carrying(Traffic traffic) const {
    Meter labelled = *this;
    labelled.lane_.traffic = traffic;
    return labelled;
  }
  /// The end of the last span the lane reported.
  [[nodiscard]] double accounted_until() const { return *accounted_until_; }
  void account_until(double at_s) const { *accounted_until_ = std::max(*accounted_until_, at_s); }

 private:
  RunObserver* observer_;
  Lane lane_;
  std::shared_ptr<double> accounted_until_;
};

}  // namespace dtsim::runtime
