#include "sim/metrics/cluster_result.hpp"

#include "sim/core/csv.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <tuple>

namespace dtsim::metrics {
namespace {

using json = nlohmann::ordered_json;

/// Nine significant digits, as metrics.csv writes times: a fixed six decimals would print an arrival at 1e-12 s, a
/// start at 1e-9 s and one at 0 all as 0.000000, and their order in utilization.csv would read as a tie.
std::string number(double value) { return fmt::format("{:.9g}", value); }

json job_json(const JobResult& job) {
  json shared = json::array();
  for (const SharedLink& link : job.shared_links) {
    shared.push_back({{"link", link.link}, {"from", link.from}, {"to", link.to}, {"with", link.with}});
  }
  json stops = json::array();
  for (const JobStop& stop : job.stops) {
    stops.push_back({{"requested_s", stop.requested_s}, {"left_s", stop.left_s}, {"resumed_s", stop.resumed_s}});
  }
  json out{{"name", job.name},
           {"workers", job.workers},
           {"placement", job.placement},
           {"priority", job.priority},
           {"time_limit_s", job.time_limit_s ? json(*job.time_limit_s) : json(nullptr)},
           {"arrival_s", job.arrival_s},
           {"start_s", job.start_s},
           {"wait_s", job.wait_s()},
           {"end_s", job.end_s},
           {"run_s", job.run_s()},
           {"alone_s", job.alone_s()},
           {"slowdown", job.slowdown()},
           {"exceeded_time_limit", job.time_limit_s.has_value() && job.run_s() - job.preempted_s() > *job.time_limit_s},
           {"stops", stops},
           {"preempted_s", job.preempted_s()},
           {"checkpoint_s", job.checkpoint_s},
           {"hosts", job.hosts},
           {"ranks", job.ranks},
           {"shared_links", shared}};
  return out;
}

json links_over_time_json(const LinkTimeline& timeline) {
  json links = json::array();
  for (std::size_t r = 0; r < timeline.links.size(); ++r) {
    const LinkLoad& link = timeline.links[r];
    links.push_back({{"link", link.name}, {"from", link.from}, {"to", link.to}, {"utilization", timeline.utilization[r]}});
  }
  return {{"bin_s", timeline.bin_s}, {"links", links}};
}

/// Each moment the cluster changes: (time, busy devices, running jobs, waiting jobs).
std::vector<std::tuple<double, int, int, int>> utilization(const ClusterResult& result) {
  // +devices at a start, -devices at an end; arrivals and starts move the queue.
  std::map<double, std::tuple<int, int, int>> changes;
  for (const JobResult& job : result.jobs) {
    std::get<2>(changes[job.arrival_s]) += 1;
    auto& start = changes[job.start_s];
    std::get<0>(start) += job.workers;
    std::get<1>(start) += 1;
    std::get<2>(start) -= 1;
    auto& end = changes[job.end_s];
    std::get<0>(end) -= job.workers;
    std::get<1>(end) -= 1;
    // Stopped for another job: off its devices and back in the queue until it resumes.
    for (const JobStop& stop : job.stops) {
      auto& left = changes[stop.left_s];
      std::get<0>(left) -= job.workers;
      std::get<1>(left) -= 1;
      std::get<2>(left) += 1;
      auto& resumed = changes[stop.resumed_s];
      std::get<0>(resumed) += job.workers;
      std::get<1>(resumed) += 1;
      std::get<2>(resumed) -= 1;
    }
  }
  std::vector<std::tuple<double, int, int, int>> out;
  int busy = 0;
  int running = 0;
  int waiting = 0;
  for (const auto& [at, change] : changes) {
    busy += std::get<0>(change);
    running += std::get<1>(change);
    waiting += std::get<2>(change);
    out.emplace_back(at, busy, running, waiting);
  }
  return out;
}

}  // namespace

double off_devices_s(const std::vector<JobStop>& stops) {
  double out = 0.0;
  for (const JobStop& stop : stops) out += stop.resumed_s - stop.left_s;
  return out;
}

double ClusterResult::makespan_s() const {
  double end = 0.0;
  for (const JobResult& job : jobs) end = std::max(end, job.end_s);
  return end;
}

std::vector<std::pair<std::string, std::string>> cluster_files(const ClusterResult& result) {
  const auto changes = utilization(result);
  // Device-seconds busy over device-seconds there were, from 0 to the last end.
  double busy_device_s = 0.0;
  for (std::size_t i = 0; i + 1 < changes.size(); ++i) {
    busy_device_s += std::get<1>(changes[i]) * (std::get<0>(changes[i + 1]) - std::get<0>(changes[i]));
  }
  const double makespan = result.makespan_s();
  json jobs = json::array();
  for (const JobResult& job : result.jobs) jobs.push_back(job_json(job));
  json names = json::array();
  for (const JobResult& job : result.jobs) names.push_back(job.name);
  json timeline = json::array();
  for (const auto& [at, busy, running, waiting] : changes) {
    timeline.push_back({{"t_s", at}, {"busy_devices", busy}, {"running_jobs", running}, {"waiting_jobs", waiting}});
  }
  double wait_sum = 0.0;
  for (const JobResult& job : result.jobs) wait_sum += job.wait_s();
  json summary{{"scenario", result.name},
               {"seed", result.seed},
               {"scheduler", result.policy},
               {"preemption", result.preemption},
               {"devices", result.devices},
               {"makespan_s", makespan},
               {"mean_wait_s", result.jobs.empty() ? 0.0 : wait_sum / static_cast<double>(result.jobs.size())},
               {"device_utilization", makespan > 0.0 ? busy_device_s / (makespan * result.devices) : 0.0},
               {"jobs", jobs},
               {"interference", {{"jobs", names}, {"slowdown", result.interference}, {"simulated", result.interference_simulated}}},
               {"utilization", timeline},
               {"links_over_time", links_over_time_json(result.links_over_time)}};
  std::string csv = "job,workers,placement,priority,arrival_s,start_s,wait_s,end_s,run_s,alone_s,slowdown,shared_links,"
                    "stops,preempted_s\n";
  for (const JobResult& job : result.jobs) {
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", core::csv_field(job.name), job.workers,
                       core::csv_field(job.placement), job.priority, number(job.arrival_s), number(job.start_s),
                       number(job.wait_s()), number(job.end_s), number(job.run_s()), number(job.alone_s()),
                       number(job.slowdown()), job.shared_links.size(), job.stops.size(), number(job.preempted_s()));
  }
  std::string busy = "t_s,busy_devices,running_jobs,waiting_jobs\n";
  for (const auto& [at, devices, running, waiting] : changes) busy += fmt::format("{},{},{},{}\n", number(at), devices, running, waiting);
  return {{"summary.json", summary.dump(2) + "\n"},
          {"jobs.csv", csv},
          {"utilization.csv", busy},
          {"link_utilization.csv", link_timeline_csv(result.links_over_time)}};
}

}  // namespace dtsim::metrics
