#include "analysis/scaling_report.hpp"

#include "analysis/report_html.hpp"
#include "analysis/run_summary.hpp"

#include <fmt/format.h>

#include <set>

namespace dtsim::analysis {
namespace {

using nlohmann::json;

json field(const std::string& name, const std::string& type, const std::string& title) {
  return {{"field", name}, {"type", type}, {"title", title}};
}

json mode_colour() {
  return {{"field", "mode"}, {"type", "nominal"}, {"title", "scaling"},
          {"scale", {{"domain", {"strong", "weak"}}, {"range", {"#4c78a8", "#f58518"}}}}};
}

/// Workers on a log scale, ticked at the counts the study ran.
json workers_axis(const std::vector<ScalingStudy>& studies) {
  json ticks = json::array();
  std::set<int> seen;
  for (const ScalingStudy& study : studies) {
    for (const ScalingRow& row : study.rows) seen.insert(row.point.workers);
  }
  for (const int workers : seen) ticks.push_back(workers);
  return {{"field", "workers"}, {"type", "quantitative"}, {"title", "workers"},
          {"scale", {{"type", "log"}, {"base", 2}}}, {"axis", {{"values", ticks}, {"format", "d"}}}};
}

/// `measure` of each row against the workers, one line per mode; with the ideal as a dashed line.
Chart per_workers(const std::vector<ScalingStudy>& studies, const std::string& key, const std::string& title,
                  const std::string& axis, const std::string& caption, bool ideal) {
  json values = json::array();
  for (const ScalingStudy& study : studies) {
    for (const ScalingRow& row : study.rows) {
      json value;
      if (key == "speedup") value = row.speedup;
      if (key == "efficiency") value = row.efficiency;
      if (key == "iteration_s") value = row.point.iteration_s;
      if (key == "time_to_target_s" && row.point.time_to_target_s) value = *row.point.time_to_target_s;
      if (key == "epochs_to_target" && row.point.epochs_to_target) value = *row.point.epochs_to_target;
      if (value.is_null()) continue;
      values.push_back({{"mode", mode_name(study.mode)}, {"workers", row.point.workers}, {"value", value}});
      if (ideal) {
        values.push_back({{"mode", "ideal"}, {"workers", row.point.workers},
                          {"value", key == "speedup" ? static_cast<double>(row.point.workers) : 1.0}});
      }
    }
  }
  json layer_measured = {{"transform", json::array({{{"filter", "datum.mode !== 'ideal'"}}})},
                         {"mark", {{"type", "line"}, {"point", true}}},
                         {"encoding", {{"x", workers_axis(studies)},
                                       {"y", {{"field", "value"}, {"type", "quantitative"}, {"title", axis},
                                              {"scale", {{"zero", key != "speedup"}}}}},
                                       {"color", mode_colour()},
                                       {"tooltip", json::array({field("mode", "nominal", "scaling"),
                                                                field("workers", "quantitative", "workers"),
                                                                field("value", "quantitative", axis)})}}}};
  json spec = {{"description", title}, {"width", 660}, {"height", 280}, {"data", {{"values", values}}}};
  if (ideal) {
    json layer_ideal = {{"transform", json::array({{{"filter", "datum.mode === 'ideal'"}}})},
                        {"mark", {{"type", "line"}, {"strokeDash", {4, 4}}, {"color", "#888"}}},
                        {"encoding", {{"x", workers_axis(studies)}, {"y", {{"field", "value"}, {"type", "quantitative"}}}}}};
    spec["layer"] = json::array({layer_ideal, layer_measured});
  } else {
    spec["layer"] = json::array({layer_measured});
  }
  return Chart{title, caption, std::move(spec)};
}

Chart shares(const std::vector<ScalingStudy>& studies) {
  json values = json::array();
  for (const ScalingStudy& study : studies) {
    for (const ScalingRow& row : study.rows) {
      for (const auto& [part, share] : {std::pair{"compute", row.point.compute_share},
                                        std::pair{"communication", row.point.communication_share},
                                        std::pair{"waiting", row.point.waiting_share}}) {
        values.push_back({{"mode", mode_name(study.mode)}, {"workers", std::to_string(row.point.workers)},
                          {"order", row.point.workers}, {"part", part}, {"share", share}});
      }
    }
  }
  json spec = {{"description", "where the workers' time goes"},
               {"width", 340},
               {"height", 240},
               {"data", {{"values", values}}},
               {"mark", "bar"},
               {"encoding",
                {{"x", {{"field", "workers"}, {"type", "ordinal"}, {"title", "workers"}, {"sort", {{"field", "order"}}}}},
                 {"y", {{"field", "share"}, {"type", "quantitative"}, {"title", "share of the workers' time"},
                        {"axis", {{"format", "%"}}}, {"stack", "zero"}}},
                 {"color", {{"field", "part"}, {"type", "nominal"}, {"title", "time spent"},
                            {"scale", {{"domain", {"compute", "communication", "waiting"}},
                                       {"range", {"#4c78a8", "#f58518", "#e45756"}}}}}},
                 {"column", {{"field", "mode"}, {"type", "nominal"}, {"title", nullptr}}},
                 {"tooltip", json::array({field("mode", "nominal", "scaling"), field("workers", "ordinal", "workers"),
                                          field("part", "nominal", "part"), field("share", "quantitative", "share")})}}}};
  return Chart{"Where the time goes",
               "The workers' compute, communication and waiting over workers x simulated time. As communication's "
               "share grows, efficiency falls.",
               std::move(spec)};
}

std::string optional_cell(const std::optional<double>& value, const char* format = "{:.4g}") {
  return value ? fmt::format(fmt::runtime(format), *value) : std::string("-");
}

std::string fitted_law(const ScalingStudy& study) {
  if (!study.serial_fraction) return "fewer than two points: no fit";
  return study.mode == ScalingMode::Strong
             ? fmt::format("Amdahl's law fits a serial fraction f = {:.4f}: S(n) = 1 / (f + (1 - f) / n)", *study.serial_fraction)
             : fmt::format("Gustafson's law fits a serial fraction s = {:.4f}: S(n) = n - s (n - 1)", *study.serial_fraction);
}

/// Whether any point of the studies splits its model (a layout to show beside the figures).
bool any_split(const std::vector<ScalingStudy>& studies) {
  for (const ScalingStudy& study : studies) {
    for (const ScalingRow& row : study.rows) {
      if (!row.point.layout.empty()) return true;
    }
  }
  return false;
}

/// A point's split as the tables show it: its layout, or its data-parallel degree alone.
std::string split_of(const ScalingPoint& p) { return p.layout.empty() ? fmt::format("d{}", p.workers) : p.layout; }

std::string html_table(const std::vector<ScalingStudy>& studies) {
  const bool split = any_split(studies);
  std::string out;
  for (const ScalingStudy& study : studies) {
    out += fmt::format("<h2>{} scaling</h2>\n<p class=\"caption\">{}. {}</p>\n", study.mode == ScalingMode::Weak ? "Weak" : "Strong",
                       study.mode == ScalingMode::Weak ? "Each worker keeps its batch: the global batch grows with the workers"
                                                       : "The global batch stays: each worker's batch shrinks as workers grow",
                       html_escaped(fitted_law(study)));
    out += "<table><tr><th>workers</th><th>iteration s</th><th>samples/s</th><th>speedup</th><th>efficiency</th>"
           "<th>Karp-Flatt</th><th>compute</th><th>communication</th><th>waiting</th><th>to target s</th><th>epochs to target</th>";
    out += split ? "<th>split</th></tr>\n" : "</tr>\n";
    for (const ScalingRow& row : study.rows) {
      const ScalingPoint& p = row.point;
      out += fmt::format("<tr><td>{}</td><td>{:.6g}</td><td>{:.6g}</td><td>{:.3f}</td><td>{:.1f}%</td><td>{}</td><td>{:.1f}%</td>"
                         "<td>{:.1f}%</td><td>{:.1f}%</td><td>{}</td><td>{}</td>{}</tr>\n",
                         p.workers, p.iteration_s, p.samples_per_s, row.speedup, 100.0 * row.efficiency,
                         optional_cell(row.karp_flatt), 100.0 * p.compute_share, 100.0 * p.communication_share,
                         100.0 * p.waiting_share, optional_cell(p.time_to_target_s, "{:.6g}"),
                         optional_cell(p.epochs_to_target, "{:.3g}"),
                         split ? "<td>" + html_escaped(split_of(p)) + "</td>" : std::string());
    }
    out += "</table>\n";
  }
  return out;
}

}  // namespace

ScalingPoint scaling_point(const nlohmann::json& summary) {
  const json& result = summary.at("result");
  ScalingPoint point;
  double simulated = result.at("simulated_s").get<double>();
  const auto iterations = result.at("iterations").get<double>();
  double compute = 0.0;
  double communication = 0.0;
  double waiting = 0.0;
  for (const json& host : summary.at("hosts")) {
    if (host.at("role").get<std::string>() != "worker") continue;
    ++point.workers;
    compute += host.at("compute_s").get<double>();
    communication += host.at("communication_s").get<double>();
    waiting += host.at("wait_s").get<double>();
  }
  const double worker_time = point.workers * simulated;
  point.iteration_s = iterations > 0 ? simulated / iterations : 0.0;
  if (result.contains("parallelism")) point.layout = describe_layout(result.at("parallelism"));
  if (result.contains("throughput")) {
    point.samples_per_s = result.at("throughput").at("samples_per_s").get<double>();
  } else {
    const double batch = summary.at("scenario").at("training").at("batch").at("per_worker").get<double>();
    point.samples_per_s = simulated > 0.0 ? batch * point.workers * iterations / simulated : 0.0;
  }
  if (worker_time > 0.0) {
    point.compute_share = compute / worker_time;
    point.communication_share = communication / worker_time;
    point.waiting_share = waiting / worker_time;
  }
  if (result.contains("time_to_target") && result.at("time_to_target").value("reached", false)) {
    point.time_to_target_s = result.at("time_to_target").at("sim_time_s").get<double>();
    if (result.at("iterations_per_epoch").get<double>() > 0) {
      point.epochs_to_target = result.at("time_to_target").at("epoch").get<double>();
    }
  }
  return point;
}

std::string scaling_report_html(const std::string& name, const std::vector<ScalingStudy>& studies) {
  std::vector<Chart> charts;
  charts.push_back(per_workers(studies, "speedup", "Speedup", "speedup",
                               "Against the smallest run (dashed: ideal, the workers). Strong: the same global batch in "
                               "less time; weak: the scaled speedup, more samples in the same time.",
                               true));
  charts.push_back(per_workers(studies, "efficiency", "Parallel efficiency", "efficiency",
                               "Speedup over workers (dashed: ideal, 1).", true));
  charts.push_back(per_workers(studies, "iteration_s", "Iteration time", "simulated seconds per iteration",
                               "Strong scaling shrinks each worker's batch; weak scaling keeps it, so its iteration time "
                               "grows only by communication and waiting.",
                               false));
  charts.push_back(shares(studies));
  bool target = false;
  for (const ScalingStudy& study : studies) {
    for (const ScalingRow& row : study.rows) target = target || row.point.time_to_target_s.has_value();
  }
  if (target) {
    charts.push_back(per_workers(studies, "time_to_target_s", "Time to the target loss", "simulated seconds",
                                 "The statistical side: a bigger global batch takes fewer, larger steps per epoch.", false));
    charts.push_back(per_workers(studies, "epochs_to_target", "Epochs to the target loss", "epochs",
                                 "Weak scaling grows the global batch, which needs more epochs to reach the same loss.", false));
  }
  return page_html("dtsim scaling study: " + name, "", charts, html_table(studies));
}

std::string scaling_table(const std::vector<ScalingStudy>& studies) {
  const bool split = any_split(studies);
  std::string out;
  for (const ScalingStudy& study : studies) {
    out += fmt::format("{} scaling: {}\n", mode_name(study.mode), fitted_law(study));
    out += fmt::format("  {:>8} {:>13} {:>13} {:>9} {:>10} {:>10} {:>9} {:>9} {:>9} {:>12} {:>8}{}\n", "workers", "iteration_s",
                       "samples/s", "speedup", "efficiency", "karp-flatt", "compute", "comm", "waiting", "to_target_s", "epochs",
                       split ? "  split" : "");
    for (const ScalingRow& row : study.rows) {
      const ScalingPoint& p = row.point;
      out += fmt::format("  {:>8} {:>13.6g} {:>13.6g} {:>9.3f} {:>9.1f}% {:>10} {:>8.1f}% {:>8.1f}% {:>8.1f}% {:>12} {:>8}{}\n",
                         p.workers, p.iteration_s, p.samples_per_s, row.speedup, 100.0 * row.efficiency,
                         optional_cell(row.karp_flatt), 100.0 * p.compute_share, 100.0 * p.communication_share,
                         100.0 * p.waiting_share, optional_cell(p.time_to_target_s, "{:.6g}"),
                         optional_cell(p.epochs_to_target, "{:.3g}"), split ? "  " + split_of(p) : std::string());
    }
  }
  return out;
}

}  // namespace dtsim::analysis
