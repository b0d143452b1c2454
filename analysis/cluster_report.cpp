#include "analysis/cluster_report.hpp"

#include "analysis/report_html.hpp"

#include <fmt/format.h>

#include <optional>
#include <utility>
#include <vector>

namespace dtsim::analysis {
namespace {

using nlohmann::json;

/// The page's chart size, as the run reports draw theirs.
constexpr int kClusterChartWidth = 660;
constexpr int kClusterChartHeight = 280;
/// Devices the Gantt chart draws at most, an even sample beyond (the summary lists every job's hosts).
constexpr std::size_t kGanttDevices = 256;

json encoded(const std::string& name, const std::string& type, const json& title) {
  return {{"field", name}, {"type", type}, {"title", title}};
}

/// A job's times on its devices: from its start to its end, less the times it was stopped for another job.
std::vector<std::pair<double, double>> on_devices(const json& job) {
  std::vector<std::pair<double, double>> out;
  double from = job.at("start_s").get<double>();
  for (const json& stop : job.value("stops", json::array())) {
    out.emplace_back(from, stop.at("left_s").get<double>());
    from = stop.at("resumed_s").get<double>();
  }
  out.emplace_back(from, job.at("end_s").get<double>());
  return out;
}

Chart jobs_on_devices(const json& summary) {
  const int devices = summary.at("devices").get<int>();
  const std::size_t every = devices > static_cast<int>(kGanttDevices) ? static_cast<std::size_t>(devices) / kGanttDevices + 1 : 1;
  json values = json::array();
  for (const json& job : summary.at("jobs")) {
    const json& hosts = job.at("hosts");
    const json& ranks = job.at("ranks");
    for (const auto& [from, to] : on_devices(job)) {
      for (std::size_t i = 0; i < hosts.size(); ++i) {
        if (ranks[i].get<std::size_t>() % every != 0) continue;
        values.push_back({{"device", hosts[i]}, {"rank", ranks[i]}, {"job", job.at("name")}, {"start", from}, {"end", to}});
      }
    }
  }
  json spec{{"description", "jobs on the devices over time"},
            {"width", kClusterChartWidth},
            {"data", {{"values", values}}},
            {"mark", "bar"},
            {"encoding",
             {{"y", {{"field", "device"}, {"type", "nominal"}, {"title", nullptr}, {"sort", {{"field", "rank"}}}}},
              {"x", encoded("start", "quantitative", "simulated time (s)")},
              {"x2", {{"field", "end"}}},
              {"color", encoded("job", "nominal", "job")},
              {"tooltip", json::array({encoded("job", "nominal", "job"), encoded("device", "nominal", "device"),
                                       encoded("start", "quantitative", "from (s)"), encoded("end", "quantitative", "to (s)")})}}}};
  return Chart{"Jobs on the devices",
               every > 1 ? fmt::format("Each job from its start to its end on each of its devices, less the times it was "
                                       "stopped for a job of higher priority (every {}th device).", every)
                         : "Each job from its start to its end on each of its devices, less the times it was stopped for a "
                           "job of higher priority.",
               std::move(spec)};
}

Chart busy_over_time(const json& summary) {
  json values = json::array();
  for (const json& change : summary.at("utilization")) {
    values.push_back({{"t", change.at("t_s")}, {"count", change.at("busy_devices")}, {"what", "devices busy"}});
    values.push_back({{"t", change.at("t_s")}, {"count", change.at("waiting_jobs")}, {"what", "jobs waiting"}});
  }
  json spec{{"description", "devices busy and jobs waiting over time"},
            {"width", kClusterChartWidth},
            {"height", kClusterChartHeight},
            {"data", {{"values", values}}},
            {"mark", {{"type", "line"}, {"interpolate", "step-after"}}},
            {"encoding",
             {{"x", encoded("t", "quantitative", "simulated time (s)")},
              {"y", encoded("count", "quantitative", nullptr)},
              {"color", encoded("what", "nominal", nullptr)},
              {"tooltip", json::array({encoded("what", "nominal", "what"), encoded("t", "quantitative", "from (s)"),
                                       encoded("count", "quantitative", "count")})}}}};
  return Chart{"Devices busy and jobs waiting",
               fmt::format("Of the cluster's {} devices, at each moment a job arrives, starts, ends, or is stopped or resumed.",
                           summary.at("devices").get<int>()),
               std::move(spec)};
}

Chart waits_and_slowdowns(const json& summary) {
  json values = json::array();
  for (const json& job : summary.at("jobs")) {
    values.push_back({{"job", job.at("name")}, {"value", job.at("wait_s")}, {"what", "wait (s)"}});
    values.push_back({{"job", job.at("name")}, {"value", job.at("slowdown")}, {"what", "slowdown against alone"}});
  }
  json spec{{"description", "each job's wait and slowdown"},
            {"data", {{"values", values}}},
            {"mark", "bar"},
            {"facet", {{"row", encoded("what", "nominal", nullptr)}}},
            {"spec", {{"width", kClusterChartWidth},
                      {"height", kClusterChartHeight / 2},
                      {"mark", "bar"},
                      {"encoding", {{"x", {{"field", "job"}, {"type", "nominal"}, {"title", nullptr}, {"sort", nullptr}}},
                                    {"y", encoded("value", "quantitative", nullptr)},
                                    {"tooltip", json::array({encoded("job", "nominal", "job"), encoded("value", "quantitative", "value")})}}}}},
            {"resolve", {{"scale", {{"y", "independent"}}}}}};
  spec.erase("mark");
  return Chart{"Waits and slowdowns",
               "Each job's time in the queue, and its time beside the other jobs over its time alone on the same devices "
               "from the same start.",
               std::move(spec)};
}

Chart interference(const json& summary) {
  const json& names = summary.at("interference").at("jobs");
  const json& slowdown = summary.at("interference").at("slowdown");
  const json& simulated = summary.at("interference").at("simulated");
  json values = json::array();
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t j = 0; j < names.size(); ++j) {
      values.push_back({{"job", names[i]}, {"beside", names[j]}, {"slowdown", slowdown[i][j]},
                        {"label", simulated[i][j].get<bool>() ? fmt::format("{:.3f}", slowdown[i][j].get<double>()) : ""}});
    }
  }
  const json x{{"field", "beside"}, {"type", "nominal"}, {"title", "beside job"}, {"sort", nullptr}};
  const json y{{"field", "job"}, {"type", "nominal"}, {"title", "job"}, {"sort", nullptr}};
  json spec{{"description", "the interference matrix"},
            {"width", {{"step", 64}}},
            {"height", {{"step", 28}}},
            {"data", {{"values", values}}},
            {"encoding", {{"x", x}, {"y", y}}},
            {"layer", json::array({{{"mark", "rect"},
                                    {"encoding", {{"color", {{"field", "slowdown"}, {"type", "quantitative"}, {"title", "slowdown"},
                                                             {"scale", {{"scheme", "oranges"}}}}},
                                                  {"tooltip", json::array({encoded("job", "nominal", "job"),
                                                                           encoded("beside", "nominal", "beside"),
                                                                           encoded("slowdown", "quantitative", "slowdown")})}}}},
                                   {{"mark", "text"}, {"encoding", {{"text", {{"field", "label"}}}}}}})}};
  return Chart{"Interference matrix",
               "Row job's time beside the column job alone, over its time alone. Only pairs whose messages met on a link "
               "are simulated together and labelled; the others are 1, since neither can slow the other.",
               std::move(spec)};
}

std::optional<Chart> links_over_time(const json& summary) {
  if (!summary.contains("links_over_time") || summary.at("links_over_time").at("links").empty()) return std::nullopt;
  const json& timeline = summary.at("links_over_time");
  const double bin = timeline.at("bin_s").get<double>();
  json values = json::array();
  for (const json& link : timeline.at("links")) {
    const std::string name = fmt::format("{} \u2192 {}", link.at("from").get<std::string>(), link.at("to").get<std::string>());
    const json& utilization = link.at("utilization");
    for (std::size_t b = 0; b < utilization.size(); ++b) {
      values.push_back({{"link", name}, {"from", static_cast<double>(b) * bin}, {"to", static_cast<double>(b + 1) * bin},
                        {"utilization", utilization[b]}});
    }
  }
  json spec{{"description", "the busiest link directions' utilization over time"},
            {"width", kClusterChartWidth},
            {"data", {{"values", values}}},
            {"mark", "rect"},
            {"encoding",
             {{"y", {{"field", "link"}, {"type", "nominal"}, {"title", nullptr}, {"sort", nullptr}}},
              {"x", encoded("from", "quantitative", "simulated time (s)")},
              {"x2", {{"field", "to"}}},
              {"color", {{"field", "utilization"}, {"type", "quantitative"}, {"title", "utilization"},
                         {"scale", {{"scheme", "blues"}}}}},
              {"tooltip", json::array({encoded("link", "nominal", "link"), encoded("from", "quantitative", "from (s)"),
                                       encoded("utilization", "quantitative", "utilization")})}}}};
  return Chart{"Links over time",
               fmt::format("The {} busiest link directions over the makespan (link_utilization.csv): each job's bytes "
                           "between its iteration ends, spread evenly over that time, summed over the jobs, over what the "
                           "direction can carry.",
                           timeline.at("links").size()),
               std::move(spec)};
}

std::string jobs_table(const json& summary) {
  std::string out = "<table>\n<tr><th>job</th><th>devices</th><th>placement</th><th>arrival (s)</th><th>wait (s)</th>"
                    "<th>run (s)</th><th>stopped (s)</th><th>alone (s)</th><th>slowdown</th><th>links shared</th></tr>\n";
  for (const json& job : summary.at("jobs")) {
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.6f}</td><td>{:.6f}</td><td>{:.6f}</td><td>{:.6f}</td>"
                       "<td>{:.6f}</td><td>{:.4f}</td><td>{}</td></tr>\n",
                       html_escaped(job.at("name").get<std::string>()), job.at("workers").get<int>(),
                       html_escaped(job.at("placement").get<std::string>()), job.at("arrival_s").get<double>(),
                       job.at("wait_s").get<double>(), job.at("run_s").get<double>(), job.value("preempted_s", 0.0),
                       job.at("alone_s").get<double>(),
                       job.at("slowdown").get<double>(), job.at("shared_links").size());
  }
  return out + "</table>\n";
}

}  // namespace

std::string cluster_report_html(const json& summary) {
  const std::string title = "dtsim report: " + summary.at("scenario").get<std::string>();
  const std::string intro =
      fmt::format("<p>{} jobs on {} devices under {}{}: all done at {:.6f} s of simulated time; the devices were busy "
                  "{:.1f}% of it; a job waited {:.6f} s on average.</p>\n",
                  summary.at("jobs").size(), summary.at("devices").get<int>(),
                  html_escaped(summary.at("scheduler").get<std::string>()),
                  summary.value("preemption", "off") == "checkpoint" ? " with preemption by checkpoint" : "",
                  summary.at("makespan_s").get<double>(),
                  100.0 * summary.at("device_utilization").get<double>(), summary.at("mean_wait_s").get<double>()) +
      jobs_table(summary);
  std::vector<Chart> charts{jobs_on_devices(summary), busy_over_time(summary), waits_and_slowdowns(summary),
                            interference(summary)};
  if (std::optional<Chart> links = links_over_time(summary)) charts.push_back(std::move(*links));
  return page_html(title, intro, std::move(charts), "<p>Each job's own results are in jobs/&lt;job&gt;/.</p>\n");
}

}  // namespace dtsim::analysis
