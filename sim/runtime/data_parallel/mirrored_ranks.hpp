#pragma once
// Ranks that behave alike, simulated once. Under `network_model: analytical`, a timing-only data-parallel
// job of equal workers (one device type, no stragglers, no failures, nothing else on the links) gives every
// rank the same timeline: each computes the same FLOPs on the same device, and each phase of a collective
// starts when the last rank reaches it and ends at the same moment for all. Simulating every rank then
// repeats one timeline p times, a SimGrid actor switch each time: at 65,536 GPUs that is most of the run.
// Instead worker 0 (and its gradient stream) runs alone and stands for all: its transports time each phase
// from what every rank sends (AnalyticalNetwork::phase_for_all) and count every rank's bytes on the links;
// what it reports is repeated for every worker (MirroredRanks, copy_stand_ins), and the energy meter
// reads its host for all. The outputs equal those of a run of every rank (tested, file by file).
//
// A timing-only model-parallel job (tensor and pipeline groups, replicated over data parallelism) of equal
// workers is alike along the data axis only: the ranks of replica 0 run every stage and tensor share, and
// each stands for the same rank of every other replica. They are simulated; their tensor groups meet as
// usual, each pipeline message moves with every replica's copy of it (AnalyticalNetwork::set_replicas), and
// each stage's replica groups are timed from every replica's flows. Bytes on the links are counted for every
// replica's copy.
//
// Under expert parallelism carved out of the replicas, with routing even (every device of an expert group has the
// same load), the replicas are alike too: a replica of a rank is every device holding the same share of its dense
// layers (scenario::replica_group), its expert group's devices among them. Replica 0's rank stands for them all;
// its expert group stands for every expert group among its replicas, and its group of devices holding the same
// experts for every such group (WorkerGroup::stand_for). An exchange of tokens is timed from every rank's steps
// (their own dispatcher's, or those the collective would run on each rank, comm::recorded_steps), each expert group
// alone as in a run of every rank, and ends when the slowest group's last rank does; every group's bytes are
// counted on their own routes. On the experts' own grid (expert_tensor declared, at 1) an expert group may hold
// devices of several tensor ranks: the stand-ins of those ranks each stand for every expert group among their
// replicas, meet at each exchange (AnalyticalNetwork::meet), and the last of them to enter times it for all and
// counts its bytes once; each group of devices holding the same experts must lie within one tensor rank's devices.
//
// Under context parallelism a context group's devices hold the same layers and each an even share of every
// sequence (two chunks, for causal attention's balance): they are replicas too, and replica 0's rank stands for
// every context group among its replicas. Its allgathers and reduce-scatters of keys and values are timed group by
// group, each alone as in a run of every rank, the slowest ending them; each ring transfer of keys and values is
// one phase of every rank sending its block to the next (ContextAttention), where a run of every rank times each
// rank's message alone: the same where a group's transfers share no link.

#include "sim/metrics/run_record.hpp"
#include "sim/runtime/context/training_context.hpp"
#include "sim/runtime/observe/run_observer.hpp"
#include "sim/runtime/setup/training_setup.hpp"
#include "sim/scenario/scenario.hpp"

#include <map>
#include <string>
#include <vector>

namespace dtsim::runtime {

/// Which ranks of `scenario` may stand for others (see above).
[[nodiscard]] Mirroring mirroring_of(const scenario::Scenario& scenario, const TrainingSetup& setup);

/// The workers a run simulates, and whom each stands for.
class StandIns {
 public:
  StandIns(const scenario::ParallelismSpec& plan, int workers, Mirroring mirroring);

  /// The ranks simulated, ascending.
  [[nodiscard]] const std::vector<int>& simulated() const { return simulated_; }
  /// The simulated rank that stands for `rank`.
  [[nodiscard]] int stand_in(int rank) const { return stand_in_.at(static_cast<std::size_t>(rank)); }
  /// The ranks simulated rank `rank` stands for, itself first, in replica order; empty for one not simulated.
  [[nodiscard]] const std::vector<int>& stands_for(int rank) const { return stands_for_.at(static_cast<std::size_t>(rank)); }
  /// stands_for() of every rank, by rank.
  [[nodiscard]] const std::vector<std::vector<int>>& stands_for_each() const { return stands_for_; }
  [[nodiscard]] int workers() const { return static_cast<int>(stand_in_.size()); }

 private:
  std::vector<int> simulated_;
  std::vector<int> stand_in_;
  std::vector<std::vector<int>> stands_for_;
};

/// Passes every event on to `next`: an event every worker reports of itself (a gradient's staleness) once
/// per worker, and with `lanes`, a lane event of a simulated rank once for each rank it stands for, a
/// message once for each replica's copy. (The run's record takes the simulated lanes once and copies their
/// activity at the end, copy_stand_ins: cheaper than p events.) `stand_ins` and `host_names` (the workers'
/// host names, by rank) must outlive it.
class MirroredRanks final : public RunObserver {
 public:
  MirroredRanks(RunObserver& next, const StandIns& stand_ins, const std::vector<std::string>& host_names, bool lanes);

  void on_compute(Lane lane, Span span) override;
  void on_communication(Lane lane, Span blocked, std::span<const Span> moving) override;
  void on_wait(Lane lane, Span span) override;
  void on_sent(Lane lane, double bytes, std::int64_t messages) override;
  void on_lane_done(Lane lane) override;
  void on_message(std::string_view from_host, Lane to, Span transfer, double bytes) override;
  [[nodiscard]] bool wants_messages() const override { return next_.wants_messages(); }
  void on_iteration(std::int64_t iteration, double at_s, const topology::LinkTraffic& traffic) override {
    next_.on_iteration(iteration, at_s, traffic);
  }
  void on_gradient_staleness(std::int64_t staleness) override {
    const std::size_t each = stand_ins_.stands_for(stand_ins_.simulated().front()).size();
    for (std::size_t worker = 0; worker < each; ++worker) next_.on_gradient_staleness(staleness);
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
  /// Calls `event` with a simulated rank's lane moved to each rank it stands for in turn (other lanes once,
  /// unchanged).
  template <class Event>
  void for_each_worker(Lane lane, Event event) {
    if (!lanes_ || lane.host >= stand_ins_.workers() || stand_ins_.stands_for(lane.host).empty()) {
      event(lane);
      return;
    }
    for (const int host : stand_ins_.stands_for(lane.host)) {
      lane.host = host;
      event(lane);
    }
  }

  RunObserver& next_;
  const StandIns& stand_ins_;
  const std::vector<std::string>& host_names_;
  std::map<std::string, int, std::less<>> rank_of_host_;
  bool lanes_;
};

/// Gives each worker of `record` that was not simulated its stand-in's activity (times, bytes, messages),
/// keeping its name.
void copy_stand_ins(metrics::RunRecord& record, const StandIns& stand_ins);

}  // namespace dtsim::runtime
