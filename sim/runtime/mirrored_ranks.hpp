#pragma once
// Ranks that behave alike, simulated once. Under `network_model: analytical`, a timing-only data-parallel
// job of equal workers (one device type, no stragglers, no failures, nothing else on the links) gives every
// rank the same timeline: each computes the same FLOPs on the same device, and each phase of a collective
// starts when the last rank reaches it and ends at the same moment for all. Simulating every rank then
// repeats one timeline p times, a SimGrid actor switch each time: at 65,536 GPUs that is most of the run.
// Instead worker 0 (and its gradient stream) runs alone and stands for all: its transports time each phase
// from what every rank sends (AnalyticalNetwork::phase_for_all) and count every rank's bytes on the links;
// what it reports is repeated for every worker (MirroredRanks, copy_first_worker), and the energy meter
// reads its host for all. The outputs equal those of a run of every rank (tested, file by file).

#include "sim/metrics/run_record.hpp"
#include "sim/runtime/run_observer.hpp"
#include "sim/runtime/training_setup.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::runtime {

/// Whether worker 0 may stand for every worker of `scenario` (see above).
[[nodiscard]] bool ranks_behave_alike(const scenario::Scenario& scenario, const TrainingSetup& setup);

/// Passes every event on to `next`: an event every worker reports of itself (a gradient's staleness) once
/// per worker, and with `lanes`, a lane event of worker 0 once for each worker's host. (The run's record
/// takes worker 0's lanes once and copies its activity at the end, copy_first_worker: cheaper than p events.)
class MirroredRanks final : public RunObserver {
 public:
  MirroredRanks(RunObserver& next, int workers, bool lanes) : next_(next), workers_(workers), lanes_(lanes) {}

  void on_compute(Lane lane, Span span) override;
  void on_communication(Lane lane, Span blocked, std::span<const Span> moving) override;
  void on_wait(Lane lane, Span span) override;
  void on_sent(Lane lane, double bytes, std::int64_t messages) override;
  void on_lane_done(Lane lane) override;
  void on_message(std::string_view from_host, Lane to, Span transfer, double bytes) override {
    next_.on_message(from_host, to, transfer, bytes);
  }
  [[nodiscard]] bool wants_messages() const override { return next_.wants_messages(); }
  void on_iteration(std::int64_t iteration, double at_s, const topology::LinkTraffic& traffic) override {
    next_.on_iteration(iteration, at_s, traffic);
  }
  void on_gradient_staleness(std::int64_t staleness) override {
    for (int worker = 0; worker < workers_; ++worker) next_.on_gradient_staleness(staleness);
  }
  void on_update() override { next_.on_update(); }
  void on_push(int worker, double relative, std::int64_t delay, bool last) override {
    next_.on_push(worker, relative, delay, last);
  }
  void on_update_measured(std::int64_t staleness, double rate_factor) override {
    next_.on_update_measured(staleness, rate_factor);
  }
  [[nodiscard]] bool measures_updates() const override { return next_.measures_updates(); }
  void on_evaluation(const metrics::EvaluationRow& row) override { next_.on_evaluation(row); }
  void on_final_parameters(std::span<const float> parameters) override { next_.on_final_parameters(parameters); }
  void on_failure(const metrics::FailureRecord& failure) override { next_.on_failure(failure); }
  void on_checkpoint(double at_s, double write_s) override { next_.on_checkpoint(at_s, write_s); }
  void on_link_change(std::string_view link, double at_s, bool down) override { next_.on_link_change(link, at_s, down); }
  void on_partition(const metrics::Partition& partition) override { next_.on_partition(partition); }
  void on_job_lost(double at_s) override { next_.on_job_lost(at_s); }
  void on_gradients_received(std::span<const std::int64_t> by_worker) override {
    next_.on_gradients_received(by_worker);
  }

 private:
  /// Calls `event` with worker 0's lane moved to each worker's host in turn (other lanes once, unchanged).
  template <class Event>
  void for_each_worker(Lane lane, Event event) {
    if (lane.host != 0 || !lanes_) {
      event(lane);
      return;
    }
    for (int host = 0; host < workers_; ++host) {
      lane.host = host;
      event(lane);
    }
  }

  RunObserver& next_;
  int workers_;
  bool lanes_;
};

/// Gives workers 1..`workers`-1 of `record` worker 0's activity (times, bytes, messages), keeping their names.
void copy_first_worker(metrics::RunRecord& record, int workers);

}  // namespace dtsim::runtime
