#pragma once
// What a run of several jobs on one cluster gives (app/cluster_command.cpp): each job's queueing, placement, time
// and slowdown against itself alone, the interference between each pair, and the devices busy over time; and the
// files that say it: summary.json, jobs.csv and utilization.csv beside each job's own folder.

#include "sim/metrics/link_timeline.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dtsim::metrics {

/// A link direction one job's messages crossed while another job's crossed it too.
struct SharedLink {
  std::string link;  ///< its name, as links.csv gives it
  std::string from;
  std::string to;
  std::vector<std::string> with;  ///< the other jobs, in declaration order
};

/// A job stopped by a job of higher priority (scheduler.preemption): asked to stop, off its devices once its
/// checkpoint was written, and back on them.
struct JobStop {
  double requested_s = 0.0;
  double left_s = 0.0;
  double resumed_s = 0.0;
};

/// The time a job spent off its devices over its `stops`.
double off_devices_s(const std::vector<JobStop>& stops);

struct JobResult {
  std::string name;
  int workers = 0;
  std::string placement;
  int priority = 0;
  std::optional<double> time_limit_s;
  double arrival_s = 0.0;
  double start_s = 0.0;
  double end_s = 0.0;
  /// Its end when replayed alone from the same start on the same devices.
  double alone_end_s = 0.0;
  std::vector<std::string> hosts;  ///< in its rank order
  std::vector<int> ranks;          ///< its hosts' ranks among the cluster's devices
  std::vector<SharedLink> shared_links;
  std::vector<JobStop> stops;
  double checkpoint_s = 0.0;  ///< preemption: the time to write its checkpoint, and to read it back

  [[nodiscard]] double wait_s() const { return start_s - arrival_s; }
  [[nodiscard]] double run_s() const { return end_s - start_s; }
  [[nodiscard]] double alone_s() const { return alone_end_s - start_s; }
  /// The time it spent off its devices, stopped for jobs of higher priority.
  [[nodiscard]] double preempted_s() const { return off_devices_s(stops); }
  /// Its time on its devices beside the other jobs (checkpoints included) over its time alone; 1 where it was never
  /// stopped and its messages met no other job's on any link (its time then differs from its time alone only by the
  /// rounding of the engine's clock, which other jobs' events advance in other steps).
  [[nodiscard]] double slowdown() const {
    return (shared_links.empty() && stops.empty()) || alone_s() <= 0.0 ? 1.0 : (run_s() - preempted_s()) / alone_s();
  }
};

struct ClusterResult {
  std::string name;
  unsigned long long seed = 0;
  std::string policy;
  std::string preemption = "off";
  int devices = 0;
  std::vector<JobResult> jobs;  ///< in declaration order
  /// [i][j]: job i's time beside job j alone over its time alone; 1 on the diagonal and where the two share no
  /// link while both run (their messages never meet, so neither slows the other); NaN (null in summary.json) for
  /// pairs that met beyond the first 256, which are not replayed.
  std::vector<std::vector<double>> interference;
  /// Whether [i][j] was simulated (the two met on some link) rather than 1 by that rule.
  std::vector<std::vector<bool>> interference_simulated;
  /// The busiest link directions' utilization over time.
  LinkTimeline links_over_time;

  [[nodiscard]] double makespan_s() const;
};

/// summary.json, jobs.csv, utilization.csv (devices busy, jobs running and waiting at each change) and
/// link_utilization.csv.
std::vector<std::pair<std::string, std::string>> cluster_files(const ClusterResult& result);

}  // namespace dtsim::metrics
