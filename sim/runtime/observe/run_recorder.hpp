#pragma once
// The observer that fills a run's record: per host, the time each of its actors spent computing,
// communicating and waiting and what it sent; the staleness counts, updates, evaluations, failures,
// checkpoints and link changes, in the order they happened.

#include "sim/metrics/run_record.hpp"
#include "sim/runtime/observe/run_observer.hpp"

#include <map>
#include <utility>
#include <vector>

namespace dtsim::runtime {

class RunRecorder final : public RunObserver {
 public:
  /// Fills `record`, whose hosts are already listed (workers by rank, then servers); it must outlive this.
  explicit RunRecorder(metrics::RunRecord& record) : record_(&record) {}

  void on_compute(Lane lane, Span span) override;
  void on_communication(Lane lane, Span blocked, std::span<const Span> moving) override;
  void on_wait(Lane lane, Span span) override;
  void on_sent(Lane lane, double bytes, std::int64_t messages) override;
  /// A helper lane's time joins its host's: its computing, communicating and bytes (its waiting does not:
  /// the host's main actor was busy meanwhile, and its own waits are counted on its lane).
  void on_lane_done(Lane lane) override;
  void on_gradient_staleness(std::int64_t staleness) override { ++record_->staleness[staleness]; }
  void on_update() override { ++record_->updates_applied; }
  /// Appends the row with the bytes every host had sent by then.
  void on_evaluation(const metrics::EvaluationRow& row) override;
  void on_failure(const metrics::FailureRecord& failure) override { record_->failures.push_back(failure); }
  void on_checkpoint(double at_s, double write_s) override;
  void on_link_change(std::string_view link, double at_s, bool down) override;
  void on_partition(const metrics::Partition& partition) override { record_->partition = partition; }
  void on_job_lost(double at_s) override { record_->job_lost_s = at_s; }
  void on_gradients_received(std::span<const std::int64_t> by_worker) override;

 private:
  /// A helper lane's totals until it ends, and for a concurrent one the spans whose union is its compute time.
  struct Helper {
    metrics::HostActivity activity;
    std::vector<Span> spans;
  };
  metrics::HostActivity& activity_of(Lane lane);

  metrics::RunRecord* record_;
  std::map<std::pair<int, int>, Helper> helpers_;
};

}  // namespace dtsim::runtime
