#include "sim/app/cluster_command.hpp"

#include "analysis/cluster_report.hpp"
#include "sim/app/isolated_call.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/checks/simulation_messages.hpp"
#include "sim/metrics/cluster_result.hpp"
#include "sim/metrics/link_timeline.hpp"
#include "sim/metrics/run_writers.hpp"
#include "sim/runtime/jobs/cluster_placement.hpp"
#include "sim/runtime/jobs/cluster_run.hpp"
#include "sim/scenario/scenario_builder.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>

namespace dtsim::app {
namespace {

using json = nlohmann::json;

/// A simulation of the cluster may run as long as a single run may: a day of wall-clock time.
constexpr std::chrono::hours kSimulationLimit{24};
/// Pairs of jobs replayed together for the interference matrix at most: each pair is a simulation of its own.
constexpr std::size_t kPairLimit = 256;
/// Links' utilization over time: the makespan in this many bins, for this many of the busiest link directions
/// (a chart's worth of rows; links.csv has every direction over the whole makespan).
constexpr std::size_t kTimelineBins = 100;
constexpr std::size_t kTimelineLinks = 16;

/// The cluster's graph and each job's setup, made once before any simulation: the children inherit them.
struct PreparedCluster {
  topology::TopologyGraph graph;
  std::vector<runtime::TrainingSetup> setups;
};

PreparedCluster prepare(const RunCommandOptions& options, const scenario::Scenario& scenario,
                        const checks::Registries& registries) {
  PreparedCluster out{scenario::build_topology(scenario, registries.topologies), {}};
  for (const scenario::JobSpec& job : scenario.jobs) {
    static_cast<void>(runtime::explicit_ranks(job, out.graph));
    runtime::TrainingSetup setup = checks::resolve_scenario(*job.scenario, registries);
    // Other jobs' traffic breaks the premises of the shortcuts that stand a rank or a round for others.
    setup.mirror_ranks = false;
    setup.phase_shortcut = false;
    setup.values_apart = !options.values_by_message;
    setup.threads = options.threads;
    out.setups.push_back(std::move(setup));
  }
  checks::check_cluster_messages(scenario, out.setups);
  return out;
}

/// Runs `work` in a child process; its text, or a logic error saying how the child ended.
std::string in_child(const std::function<std::string(const LineSink&)>& work, const LineSink& on_line) {
  const IsolatedOutcome outcome = call_isolated_reporting(work, kSimulationLimit, {}, on_line);
  if (outcome.status == IsolatedOutcome::Status::finished) return outcome.text;
  throw std::runtime_error("a simulation of the cluster did not finish: " + outcome.text);
}

/// The jobs as the scheduler runs them: each job's start, end, devices, files and links; and the cluster's links.csv.
json shared_run(const scenario::Scenario& scenario, const scenario::ScenarioFormat& format, PreparedCluster& prepared,
                const LineSink& send) {
  std::vector<runtime::ClusterJob> jobs;
  for (std::size_t j = 0; j < scenario.jobs.size(); ++j) jobs.push_back({&scenario.jobs[j], &prepared.setups[j], {}, {}});
  const runtime::JobEvent told = [&](std::size_t job, double at_s, runtime::JobChange change) {
    constexpr std::array<const char*, 4> kSaid{"started", "ended", "stopped for a job of higher priority", "resumed"};
    send(fmt::format("job {} {} at {:.6f} s", scenario.jobs[job].name, kSaid[static_cast<std::size_t>(change)], at_s));
  };
  const std::vector<runtime::JobOutcome> outcomes = runtime::run_cluster(scenario, prepared.graph, jobs, told);
  json out = json::array();
  for (std::size_t j = 0; j < outcomes.size(); ++j) {
    const runtime::JobOutcome& outcome = outcomes[j];
    json links = json::array();
    for (const metrics::LinkLoad& link : outcome.record.links) {
      if (link.bytes > 0.0) links.push_back({link.name, link.from, link.to});
    }
    json files = json::object();
    for (const auto& [name, text] : metrics::run_files(format.schema(), *scenario.jobs[j].scenario, outcome.record, nullptr)) {
      files[name] = text;
    }
    json stops = json::array();
    for (const metrics::JobStop& stop : outcome.stops) stops.push_back({stop.requested_s, stop.left_s, stop.resumed_s});
    out.push_back({{"start_s", outcome.start_s}, {"end_s", outcome.end_s}, {"ranks", outcome.ranks}, {"links", links},
                   {"stops", stops}, {"checkpoint_s", outcome.checkpoint_s}, {"files", files}});
  }
  std::vector<const metrics::RunRecord*> records;
  std::vector<metrics::JobLinkSamples> samples;
  double makespan_s = 0.0;
  for (const runtime::JobOutcome& outcome : outcomes) {
    records.push_back(&outcome.record);
    makespan_s = std::max(makespan_s, outcome.end_s);
    metrics::JobLinkSamples& job = samples.emplace_back();
    job.record = &outcome.record;
    job.start_s = outcome.start_s;
    for (const metrics::JobStop& stop : outcome.stops) job.off.emplace_back(stop.left_s, stop.resumed_s);
    job.samples = outcome.link_samples;
  }
  const metrics::LinkTimeline timeline = metrics::link_timeline(samples, makespan_s, kTimelineBins, kTimelineLinks);
  json over_time = json::array();
  for (std::size_t r = 0; r < timeline.links.size(); ++r) {
    const metrics::LinkLoad& link = timeline.links[r];
    over_time.push_back({link.name, link.from, link.to, link.bandwidth_bytes_per_s, timeline.utilization[r]});
  }
  return {{"jobs", out},
          {"links_csv", metrics::cluster_links_csv(records, makespan_s)},
          {"links_over_time", {{"bin_s", timeline.bin_s}, {"links", over_time}}}};
}

/// The ends of `chosen` jobs replayed from their starts on their devices, with no other job on the cluster.
std::vector<double> replay(const scenario::Scenario& scenario, PreparedCluster& prepared, const json& shared,
                           const std::vector<std::size_t>& chosen) {
  const std::string text = in_child(
      [&](const LineSink&) {
        std::vector<runtime::ClusterJob> jobs;
        for (const std::size_t j : chosen) {
          jobs.push_back({&scenario.jobs[j], &prepared.setups[j], shared[j]["start_s"].get<double>(),
                          shared[j]["ranks"].get<std::vector<int>>()});
        }
        json ends = json::array();
        for (const runtime::JobOutcome& outcome : runtime::run_cluster(scenario, prepared.graph, jobs)) ends.push_back(outcome.end_s);
        return ends.dump();
      },
      {});
  return json::parse(text).get<std::vector<double>>();
}

using Link = std::array<std::string, 3>;  ///< a link direction: its name, from, to

/// When a job was on its devices: from its start to its end, less the times it was stopped for another.
std::vector<std::pair<double, double>> on_devices(const json& job) {
  std::vector<std::pair<double, double>> out;
  double from = job["start_s"].get<double>();
  for (const json& stop : job["stops"]) {
    out.emplace_back(from, stop[1].get<double>());
    from = stop[2].get<double>();
  }
  out.emplace_back(from, job["end_s"].get<double>());
  return out;
}

/// Whether jobs `a` and `b` were on their devices at once for some time.
bool ran_together(const json& a, const json& b) {
  for (const auto& [a_from, a_to] : on_devices(a)) {
    for (const auto& [b_from, b_to] : on_devices(b)) {
      if (std::max(a_from, b_from) < std::min(a_to, b_to)) return true;
    }
  }
  return false;
}

/// [i][j]: the link directions jobs i and j both crossed where the two ran at once for some time; empty for
/// i == j and for jobs that never ran together.
std::vector<std::vector<std::vector<Link>>> meetings(const json& shared) {
  std::vector<std::set<Link>> crossed;
  for (const json& job : shared) {
    std::set<Link>& links = crossed.emplace_back();
    for (const json& link : job["links"]) links.insert(link.get<Link>());
  }
  const std::size_t n = shared.size();
  std::vector<std::vector<std::vector<Link>>> out(n, std::vector<std::vector<Link>>(n));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      if (!ran_together(shared[i], shared[j])) continue;
      std::set_intersection(crossed[i].begin(), crossed[i].end(), crossed[j].begin(), crossed[j].end(),
                            std::back_inserter(out[i][j]));
      out[j][i] = out[i][j];
    }
  }
  return out;
}

metrics::ClusterResult cluster_result(const scenario::Scenario& scenario, const PreparedCluster& prepared, const json& shared,
                                      const std::vector<double>& alone_ends,
                                      const std::vector<std::vector<std::vector<Link>>>& met_on) {
  metrics::ClusterResult out;
  out.name = scenario.name;
  out.seed = scenario.seed;
  out.policy = std::string(scenario::to_string(scenario.scheduler.policy));
  out.preemption = std::string(scenario::to_string(scenario.scheduler.preemption));
  out.devices = static_cast<int>(prepared.graph.workers().size());
  for (std::size_t j = 0; j < scenario.jobs.size(); ++j) {
    const scenario::JobSpec& spec = scenario.jobs[j];
    metrics::JobResult job{.name = spec.name,
                           .workers = spec.workers,
                           .placement = std::string(scenario::to_string(spec.placement)),
                           .priority = spec.priority,
                           .time_limit_s = spec.time_limit_s,
                           .arrival_s = spec.arrival_s,
                           .start_s = shared[j]["start_s"].get<double>(),
                           .end_s = shared[j]["end_s"].get<double>(),
                           .alone_end_s = alone_ends[j],
                           .hosts = {},
                           .ranks = shared[j]["ranks"].get<std::vector<int>>(),
                           .shared_links = {},
                           .stops = {},
                           .checkpoint_s = shared[j]["checkpoint_s"].get<double>()};
    for (const json& stop : shared[j]["stops"]) job.stops.push_back({stop[0].get<double>(), stop[1].get<double>(), stop[2].get<double>()});
    for (const int rank : shared[j]["ranks"].get<std::vector<int>>()) {
      job.hosts.push_back(prepared.graph.node(prepared.graph.workers()[static_cast<std::size_t>(rank)]).name);
    }
    std::map<Link, std::vector<std::string>> met;
    for (std::size_t other = 0; other < scenario.jobs.size(); ++other) {
      for (const Link& link : met_on[j][other]) met[link].push_back(scenario.jobs[other].name);
    }
    for (const auto& [link, with] : met) job.shared_links.push_back({link[0], link[1], link[2], with});
    out.jobs.push_back(std::move(job));
  }
  return out;
}

/// Each pair that met on a link, replayed together: [i][j] is i's time beside j over i's time alone.
void interference(const scenario::Scenario& scenario, PreparedCluster& prepared, const json& shared,
                  const std::vector<std::vector<std::vector<Link>>>& met_on, metrics::ClusterResult& result) {
  const std::size_t n = scenario.jobs.size();
  result.interference.assign(n, std::vector<double>(n, 1.0));
  result.interference_simulated.assign(n, std::vector<bool>(n, false));
  std::size_t replayed = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      if (met_on[i][j].empty()) continue;
      if (replayed++ == kPairLimit) {
        fmt::print(stderr, "note: more than {} pairs of jobs met on links; the interference matrix leaves the rest "
                           "out (null)\n", kPairLimit);
      }
      if (replayed > kPairLimit) {
        result.interference[i][j] = result.interference[j][i] = std::numeric_limits<double>::quiet_NaN();
        continue;
      }
      const std::vector<double> ends = replay(scenario, prepared, shared, {i, j});
      const std::array<std::size_t, 2> pair{i, j};
      for (std::size_t k = 0; k < 2; ++k) {
        const metrics::JobResult& job = result.jobs[pair[k]];
        result.interference[pair[k]][pair[1 - k]] = job.alone_s() > 0.0 ? (ends[k] - job.start_s) / job.alone_s() : 1.0;
        result.interference_simulated[pair[k]][pair[1 - k]] = true;
      }
    }
  }
}

void print_table(const metrics::ClusterResult& result, const std::filesystem::path& folder, double wall_s) {
  const bool preempts = result.preemption != "off";
  fmt::print("{:<20} {:>7} {:>9} {:>12} {:>12} {:>12} {:>12} {:>9}{}\n", "job", "devices", "placement", "arrival (s)",
             "wait (s)", "run (s)", "alone (s)", "slowdown", preempts ? fmt::format(" {:>6} {:>14}", "stops", "stopped (s)") : "");
  for (const metrics::JobResult& job : result.jobs) {
    fmt::print("{:<20} {:>7} {:>9} {:>12.6f} {:>12.6f} {:>12.6f} {:>12.6f} {:>9.4f}{}\n", job.name, job.workers,
               job.placement, job.arrival_s, job.wait_s(), job.run_s(), job.alone_s(), job.slowdown(),
               preempts ? fmt::format(" {:>6} {:>14.6f}", job.stops.size(), job.preempted_s()) : "");
  }
  fmt::print("{} jobs on {} devices under {}{}: all done at {:.6f} s of simulated time ({:.1f} s wall)\n",
             result.jobs.size(), result.devices, result.policy, preempts ? " with preemption by checkpoint" : "",
             result.makespan_s(), wall_s);
  fmt::print("results in {}/: summary.json, jobs.csv, utilization.csv, links.csv, link_utilization.csv, jobs/<job>/\n",
             folder.string());
}

}  // namespace

void run_cluster_jobs(const RunCommandOptions& options, const scenario::Scenario& scenario,
                      const std::filesystem::path& folder, const scenario::ScenarioFormat& format) {
  const auto started = std::chrono::steady_clock::now();
  PreparedCluster prepared = prepare(options, scenario, format.registries());
  const bool chatty = !options.quiet && ::isatty(STDERR_FILENO) != 0;
  const LineSink progress = [&](const std::string& line) {
    if (options.progress_to) options.progress_to(line);
    if (chatty) fmt::print(stderr, "  {}\n", line);
  };
  const json run = json::parse(
      in_child([&](const LineSink& send) { return shared_run(scenario, format, prepared, send).dump(); }, progress));
  const json& shared = run["jobs"];
  std::vector<double> alone_ends;
  for (std::size_t j = 0; j < scenario.jobs.size(); ++j) {
    alone_ends.push_back(replay(scenario, prepared, shared, {j}).front());
    progress(fmt::format("job {} replayed alone", scenario.jobs[j].name));
  }
  const std::vector<std::vector<std::vector<Link>>> met_on = meetings(shared);
  metrics::ClusterResult result = cluster_result(scenario, prepared, shared, alone_ends, met_on);
  result.links_over_time.bin_s = run["links_over_time"]["bin_s"].get<double>();
  for (const json& link : run["links_over_time"]["links"]) {
    metrics::LinkLoad& load = result.links_over_time.links.emplace_back();
    load.name = link[0].get<std::string>();
    load.from = link[1].get<std::string>();
    load.to = link[2].get<std::string>();
    load.bandwidth_bytes_per_s = link[3].get<double>();
    result.links_over_time.utilization.push_back(link[4].get<std::vector<double>>());
  }
  interference(scenario, prepared, shared, met_on, result);
  std::vector<std::pair<std::string, std::string>> files = metrics::cluster_files(result);
  files.emplace_back("links.csv", run["links_csv"].get<std::string>());
  for (std::size_t j = 0; j < scenario.jobs.size(); ++j) {
    for (const auto& [name, text] : shared[j]["files"].items()) {
      files.emplace_back(fmt::format("jobs/{}/{}", scenario.jobs[j].name, name), text.get<std::string>());
    }
  }
  if (options.report || scenario.outputs.report) {
    files.emplace_back("report.html", analysis::cluster_report_html(nlohmann::json::parse(files.front().second)));
  }
  metrics::write_run_outputs(folder, files);
  if (!options.quiet) {
    print_table(result, folder, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
}

}  // namespace dtsim::app
