#include "analysis/report_charts.hpp"

#include "sim/scenario/parallel_axes.hpp"
#include "sim/scenario/parallel_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>

namespace dtsim::analysis {
namespace {

using nlohmann::json;

constexpr int kWidth = 660;
constexpr int kHeight = 280;

json axis_field(const std::string& field, const std::string& type, const std::string& title) {
  return {{"field", field}, {"type", type}, {"title", title}};
}

json run_colour(const std::vector<ReportRun>& runs) {
  json labels = json::array();
  for (const ReportRun& run : runs) labels.push_back(run.label);
  return {{"field", "run"}, {"type", "nominal"}, {"title", "run"}, {"sort", labels},
          {"scale", {{"scheme", runs.size() > 10 ? "category20" : "tableau10"}}}};
}

json base_spec(json values, const std::string& description) {
  return {{"description", description},
          {"width", kWidth},
          {"height", kHeight},
          {"data", {{"values", std::move(values)}}}};
}

bool is_number(const json& row, const char* key) { return row.contains(key) && row.at(key).is_number(); }

/// What a learning curve is drawn against: metrics.csv's column, its axis, the chart's words and caption.
struct CurveAxis {
  const char* column;
  const char* axis;
  const char* words;
  const char* tooltip;
  const char* caption;
};

const CurveAxis& curve_axis(const std::string& x) {
  static const CurveAxis axes[] = {
      {"sim_time_s", "simulated time (s)", "simulated time", "s",
       "Solid: validation, dashed: training. Against simulated time a strategy that waits less gets there sooner "
       "even when it needs more iterations."},
      {"iteration", "iteration", "iterations", "iteration",
       "Per iteration, stale or approximate updates show as a slower fall."},
      {"bytes_sent", "bytes sent by every worker", "bytes sent", "bytes",
       "Solid: validation, dashed: training. Per byte on the wire, a strategy that communicates less (local SGD, "
       "DiLoCo) gets further on the same network budget."},
  };
  for (const CurveAxis& axis : axes) {
    if (x == axis.column) return axis;
  }
  return axes[0];
}

/// Training and validation `what` ("loss" or "accuracy") against `x` ("sim_time_s", "iteration" or
/// "bytes_sent").
std::optional<Chart> curve(const std::vector<ReportRun>& runs, const std::string& what, const std::string& x) {
  json values = json::array();
  for (const ReportRun& run : runs) {
    for (const json& row : run.metrics) {
      if (!is_number(row, x.c_str())) continue;
      for (const auto& [split, key] : {std::pair{"training", "train_"}, std::pair{"validation", "val_"}}) {
        const std::string column = key + what;
        if (is_number(row, column.c_str())) {
          values.push_back({{"run", run.label}, {"x", row.at(x)}, {"value", row.at(column)}, {"split", split}});
        }
      }
    }
  }
  if (values.empty()) return std::nullopt;
  const CurveAxis& axis = curve_axis(x);
  json spec = base_spec(std::move(values), what + " against " + axis.words);
  spec["mark"] = {{"type", "line"}, {"point", false}};
  spec["encoding"] = {
      {"x", axis_field("x", "quantitative", axis.axis)},
      {"y", axis_field("value", "quantitative", what)},
      {"color", run_colour(runs)},
      {"strokeDash",
       {{"field", "split"},
        {"type", "nominal"},
        {"title", "data"},
        {"scale", {{"domain", {"validation", "training"}}}}}},
      {"tooltip",
       json::array({axis_field("run", "nominal", "run"), axis_field("split", "nominal", "data"),
                    axis_field("x", "quantitative", axis.tooltip), axis_field("value", "quantitative", what)})}};
  const std::string title = fmt::format("{} against {}", what == "loss" ? "Loss" : "Accuracy", axis.words);
  return Chart{title, axis.caption, std::move(spec)};
}

/// Timing-only runs: a column of metrics.csv's per-iteration rows against the iteration.
std::optional<Chart> per_iteration(const std::vector<ReportRun>& runs, const std::string& column,
                                   const std::string& title, const std::string& axis, const std::string& caption) {
  json values = json::array();
  for (const ReportRun& run : runs) {
    for (const json& row : run.metrics) {
      if (is_number(row, "iteration_s") && is_number(row, column.c_str())) {
        values.push_back({{"run", run.label}, {"iteration", row.at("iteration")}, {"value", row.at(column)}});
      }
    }
  }
  if (values.empty()) return std::nullopt;
  // One iteration a run: a line of single points says nothing; each run is a bar.
  const bool single = std::all_of(values.begin(), values.end(), [&](const json& v) { return v.at("iteration") == values.front().at("iteration"); });
  json spec = base_spec(std::move(values), title);
  if (single) {
    spec["mark"] = "bar";
    spec["encoding"] = {{"x", axis_field("run", "nominal", "run")},
                        {"y", axis_field("value", "quantitative", axis)},
                        {"color", run_colour(runs)},
                        {"tooltip", json::array({axis_field("run", "nominal", "run"), axis_field("value", "quantitative", axis)})}};
    return Chart{title, caption, std::move(spec)};
  }
  spec["mark"] = {{"type", "line"}, {"point", true}};
  spec["encoding"] = {{"x", axis_field("iteration", "quantitative", "iteration")},
                      {"y", axis_field("value", "quantitative", axis)},
                      {"color", run_colour(runs)},
                      {"tooltip", json::array({axis_field("run", "nominal", "run"),
                                               axis_field("iteration", "quantitative", "iteration"),
                                               axis_field("value", "quantitative", axis)})}};
  return Chart{title, caption, std::move(spec)};
}

/// Indices of at most kChartHosts of `count` hosts, spread evenly (all of them when they fit).
std::vector<std::size_t> host_sample(std::size_t count) {
  std::vector<std::size_t> out(std::min(count, kChartHosts));
  if (out.size() == count) {
    std::iota(out.begin(), out.end(), 0);
    return out;
  }
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = i * (count - 1) / (out.size() - 1);
  return out;
}

/// A split run's worker hosts grouped by pipeline stage and tensor rank: the mean of each group's hosts (the
/// replicas, and the context and expert ranks, of that stage and tensor rank). Worker hosts are listed by rank;
/// a rank's coordinates follow result.parallelism.placement, innermost first. Empty where the run has no split.
struct RankGroup {
  int stage = 0;
  int tensor_rank = 0;
  int hosts = 0;
  double compute_s = 0.0, communication_s = 0.0, wait_s = 0.0;
};

/// The run's split from result.parallelism, placed as the run placed it; none where it is absent or damaged.
std::optional<scenario::ParallelismSpec> run_split(const json& result) {
  if (!result.contains("parallelism") || !result.at("parallelism").contains("placement")) return std::nullopt;
  const json& given = result.at("parallelism");
  scenario::ParallelismSpec plan;
  for (const scenario::AxisEntry& entry : scenario::parallel_axes()) {
    const int degree = given.value(std::string(entry.name), 1);
    if (degree < 1) return std::nullopt;
    scenario::set_declared_degree(plan, entry.axis, degree);
  }
  // An axis carved out of another divides its degree (the expert groups the replicas).
  for (const scenario::AxisEntry& entry : scenario::parallel_axes()) {
    if (entry.carved_from &&
        scenario::declared_degree(plan, *entry.carved_from) % scenario::declared_degree(plan, entry.axis) != 0) {
      return std::nullopt;
    }
  }
  plan.placement.clear();
  for (const json& name : given.at("placement")) {
    const std::optional<scenario::ParallelAxis> axis = name.is_string() ? scenario::axis_named(name.get<std::string>()) : std::nullopt;
    if (!axis) return std::nullopt;
    plan.placement.push_back(*axis);
  }
  scenario::place_optional_axes(plan);
  return plan;
}

std::vector<RankGroup> stage_and_rank_groups(const json& summary) {
  const std::optional<scenario::ParallelismSpec> plan = run_split(summary.at("result"));
  if (!plan || (plan->tensor == 1 && plan->pipeline == 1)) return {};
  std::vector<RankGroup> groups(static_cast<std::size_t>(plan->tensor * plan->pipeline));
  int rank = 0;
  for (const json& host : summary.at("hosts")) {
    if (host.at("role").get<std::string>() != "worker") continue;
    const scenario::ParallelCoordinates at = scenario::coordinates_of(*plan, rank++);
    const int stage = at[scenario::ParallelAxis::Pipeline];
    const int tensor_rank = at[scenario::ParallelAxis::Tensor];
    RankGroup& group = groups[static_cast<std::size_t>(stage * plan->tensor + tensor_rank)];
    group.stage = stage;
    group.tensor_rank = tensor_rank;
    ++group.hosts;
    group.compute_s += host.at("compute_s").get<double>();
    group.communication_s += host.at("communication_s").get<double>();
    group.wait_s += host.at("wait_s").get<double>();
  }
  for (RankGroup& group : groups) {
    const double n = std::max(1, group.hosts);
    group.compute_s /= n;
    group.communication_s /= n;
    group.wait_s /= n;
  }
  return groups;
}

/// Many hosts of a split run: a bar per pipeline stage and tensor rank (grouped by stage), the mean of its hosts.
Chart time_per_stage_and_rank(const ReportRun& run, const std::vector<RankGroup>& groups) {
  json values = json::array();
  int replicas = 0;
  for (const RankGroup& group : groups) {
    replicas = std::max(replicas, group.hosts);
    for (const auto& [part, seconds] : {std::pair{"compute", group.compute_s}, std::pair{"communication", group.communication_s},
                                        std::pair{"waiting", group.wait_s}}) {
      values.push_back({{"stage", fmt::format("stage {}", group.stage)}, {"order", group.stage},
                        {"rank", group.tensor_rank}, {"part", part}, {"seconds", seconds}});
    }
  }
  json spec = base_spec(std::move(values), "time per stage and tensor rank");
  spec["mark"] = "bar";
  spec["encoding"] = {
      {"x", {{"field", "stage"}, {"type", "nominal"}, {"title", "pipeline stage"}, {"sort", {{"field", "order"}}}}},
      {"xOffset", {{"field", "rank"}, {"type", "ordinal"}, {"title", "tensor rank"}}},
      {"y", {{"field", "seconds"}, {"type", "quantitative"}, {"title", "simulated seconds"}, {"stack", "zero"}}},
      {"color", {{"field", "part"}, {"type", "nominal"}, {"title", "time spent"},
                 {"scale", {{"domain", {"compute", "communication", "waiting"}}, {"range", {"#4c78a8", "#f58518", "#e45756"}}}}}},
      {"tooltip", json::array({axis_field("stage", "nominal", "stage"), axis_field("rank", "ordinal", "tensor rank"),
                               axis_field("part", "nominal", "part"), axis_field("seconds", "quantitative", "s")})}};
  const std::size_t hosts = run.summary.at("hosts").size();
  return Chart{"Time per stage and tensor rank",
               fmt::format("The {} hosts grouped by pipeline stage, a bar per tensor rank within each: the mean of the {} "
                           "hosts holding that stage and rank (summary.json lists each host). The last stages wait for the "
                           "first to fill the pipeline, the first for the last to drain it; a tensor rank apart from its "
                           "group's others computes or communicates differently.",
                           hosts, replicas),
               std::move(spec)};
}

Chart time_per_host(const std::vector<ReportRun>& runs) {
  json values = json::array();
  const std::vector<std::pair<const char*, const char*>> parts{
      {"compute_s", "compute"}, {"communication_s", "communication"}, {"wait_s", "waiting"}};
  std::string caption;
  if (runs.size() == 1 && runs.front().summary.at("hosts").size() > kStageChartHosts) {
    // Many hosts of a split model: their labels would overlap, and the hosts of a stage and tensor rank do alike.
    const std::vector<RankGroup> groups = stage_and_rank_groups(runs.front().summary);
    if (!groups.empty()) return time_per_stage_and_rank(runs.front(), groups);
  }
  if (runs.size() == 1) {
    const json& hosts = runs.front().summary.at("hosts");
    const std::vector<std::size_t> sample = host_sample(hosts.size());
    for (const std::size_t h : sample) {
      for (const auto& [key, part] : parts) {
        values.push_back({{"host", hosts[h].at("name")}, {"order", h}, {"part", part}, {"seconds", hosts[h].at(key)}});
      }
    }
    caption = "Each host's simulated time. A straggler computes longest; the others' waiting is the time they "
              "spent blocked for it.";
    if (sample.size() < hosts.size()) {
      caption += fmt::format(" {} of the {} hosts, spread evenly; summary.json lists all.", sample.size(), hosts.size());
    }
  } else {
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const json& hosts = runs[r].summary.at("hosts");
      for (const auto& [key, part] : parts) {
        double total = 0.0;
        for (const json& host : hosts) total += host.at(key).get<double>();
        values.push_back({{"host", runs[r].label}, {"order", r}, {"part", part},
                          {"seconds", hosts.empty() ? 0.0 : total / static_cast<double>(hosts.size())}});
      }
    }
    caption = "Per run, the mean over its hosts of compute, communication and waiting.";
  }
  json spec = base_spec(std::move(values), "time per host");
  spec["mark"] = "bar";
  spec["encoding"] = {
      {"x", {{"field", "host"}, {"type", "nominal"}, {"title", runs.size() == 1 ? "host" : "run"},
             {"sort", {{"field", "order"}}}}},
      {"y", {{"field", "seconds"}, {"type", "quantitative"}, {"title", "simulated seconds"}, {"stack", "zero"}}},
      {"color", {{"field", "part"}, {"type", "nominal"}, {"title", "time spent"},
                 {"scale", {{"domain", {"compute", "communication", "waiting"}}, {"range", {"#4c78a8", "#f58518", "#e45756"}}}}}},
      {"tooltip", json::array({axis_field("host", "nominal", "host"), axis_field("part", "nominal", "part"),
                               axis_field("seconds", "quantitative", "s")})}};
  return Chart{runs.size() == 1 ? "Time per host" : "Time per host (mean)", caption, std::move(spec)};
}

std::optional<Chart> busiest_links(const std::vector<ReportRun>& runs) {
  json values = json::array();
  for (const ReportRun& run : runs) {
    std::vector<const json*> links;
    for (const json& link : run.links) {
      if (is_number(link, "utilization") && link.at("utilization").get<double>() > 0.0) links.push_back(&link);
    }
    std::stable_sort(links.begin(), links.end(), [](const json* a, const json* b) {
      return a->at("utilization").get<double>() > b->at("utilization").get<double>();
    });
    if (links.size() > kChartLinks) links.resize(kChartLinks);
    for (const json* link : links) {
      values.push_back({{"run", run.label},
                        {"link", fmt::format("{} -> {}", link->at("from").get<std::string>(), link->at("to").get<std::string>())},
                        {"class", link->at("class")},
                        {"utilization", link->at("utilization")}});
    }
  }
  if (values.empty()) return std::nullopt;
  json spec = base_spec(std::move(values), "busiest links");
  spec["mark"] = "bar";
  spec["encoding"] = {{"y", {{"field", "link"}, {"type", "nominal"}, {"title", nullptr}, {"sort", "-x"}}},
                      {"x", {{"field", "utilization"}, {"type", "quantitative"}, {"title", "utilization (share of the run at full rate)"},
                             {"axis", {{"format", "%"}}}}},
                      {"color", run_colour(runs)},
                      {"tooltip", json::array({axis_field("run", "nominal", "run"), axis_field("link", "nominal", "link"),
                                               axis_field("class", "nominal", "class"),
                                               axis_field("utilization", "quantitative", "utilization")})}};
  if (runs.size() > 1) spec["encoding"]["yOffset"] = {{"field", "run"}, {"type", "nominal"}};
  spec.erase("height");
  return Chart{"Busiest links", fmt::format("The {} most utilized link directions of each run: bytes carried over what "
                                            "the direction could carry in the run.", kChartLinks),
               std::move(spec)};
}

std::optional<Chart> staleness(const std::vector<ReportRun>& runs) {
  json values = json::array();
  for (const ReportRun& run : runs) {
    const json& result = run.summary.at("result");
    if (!result.contains("staleness")) continue;
    for (const auto& [stale, count] : result.at("staleness").at("histogram").items()) {
      values.push_back({{"run", run.label}, {"staleness", std::stoll(stale)}, {"gradients", count}});
    }
  }
  if (values.empty()) return std::nullopt;
  json spec = base_spec(std::move(values), "staleness histogram");
  spec["mark"] = "bar";
  spec["encoding"] = {{"x", axis_field("staleness", "ordinal", "staleness (clocks or updates behind)")},
                      {"y", axis_field("gradients", "quantitative", "gradients")},
                      {"color", run_colour(runs)},
                      {"tooltip", json::array({axis_field("run", "nominal", "run"), axis_field("staleness", "ordinal", "staleness"),
                                               axis_field("gradients", "quantitative", "gradients")})}};
  if (runs.size() > 1) spec["encoding"]["xOffset"] = {{"field", "run"}, {"type", "nominal"}};
  return Chart{"Staleness", "How far behind the model each gradient was when it was applied.", std::move(spec)};
}

std::optional<Chart> energy(const std::vector<ReportRun>& runs) {
  json values = json::array();
  for (const ReportRun& run : runs) {
    const json& result = run.summary.at("result");
    if (!result.contains("energy")) continue;
    for (const auto& [key, part] : {std::pair{"compute_j", "devices computing"}, std::pair{"communication_j", "devices communicating"},
                                    std::pair{"waiting_j", "devices waiting"}, std::pair{"static_j", "nodes (static)"},
                                    std::pair{"links_j", "links"}}) {
      values.push_back({{"run", run.label}, {"part", part}, {"joules", result.at("energy").at(key)}});
    }
  }
  if (values.empty()) return std::nullopt;
  json spec = base_spec(std::move(values), "energy split");
  spec["mark"] = "bar";
  spec["encoding"] = {{"y", {{"field", "run"}, {"type", "nominal"}, {"title", nullptr}}},
                      {"x", {{"field", "joules"}, {"type", "quantitative"}, {"title", "energy (J)"}, {"stack", "zero"}}},
                      {"color", axis_field("part", "nominal", "drawn by")},
                      {"tooltip", json::array({axis_field("run", "nominal", "run"), axis_field("part", "nominal", "part"),
                                               axis_field("joules", "quantitative", "J")})}};
  spec.erase("height");
  return Chart{"Energy", "Where the joules went: a device waiting at a barrier still draws its idle power.", std::move(spec)};
}

/// A budget's projected run with failures: the drawn run's interruptions over its days, each from the moment it
/// was noticed until the job was back, coloured by cause.
std::optional<Chart> interruptions(const std::vector<ReportRun>& runs) {
  json values = json::array();
  for (const ReportRun& run : runs) {
    static const json::json_pointer kTimeline("/result/projection/failures/timeline");
    if (!run.summary.contains(kTimeline) || !run.summary.at(kTimeline).is_array()) continue;
    for (const json& at : run.summary.at(kTimeline)) {
      if (!at.is_object() || !is_number(at, "noticed_s") || !is_number(at, "resumed_s") || !is_number(at, "at_s")) continue;
      values.push_back({{"run", run.label},
                        {"cause", at.value("cause", std::string("?"))},
                        {"struck_day", at.at("at_s").get<double>() / 86'400.0},
                        {"noticed_day", at.at("noticed_s").get<double>() / 86'400.0},
                        {"back_day", at.at("resumed_s").get<double>() / 86'400.0},
                        {"down_h", (at.at("resumed_s").get<double>() - at.at("noticed_s").get<double>()) / 3600.0},
                        {"lost_iterations", at.value("lost_iterations", 0)}});
    }
  }
  if (values.empty()) return std::nullopt;
  json spec = base_spec(std::move(values), "interruptions of the drawn run");
  // A tick at each interruption, so that a recovery of minutes still shows over months; a bar across the time
  // the job was down.
  spec["layer"] = json::array({{{"mark", "bar"}, {"encoding", {{"x2", {{"field", "back_day"}}}}}}, {{"mark", "tick"}}});
  spec["encoding"] = {
      {"y", {{"field", "run"}, {"type", "nominal"}, {"title", nullptr}}},
      {"x", axis_field("noticed_day", "quantitative", "days into the run")},
      {"color", axis_field("cause", "nominal", "cause")},
      {"tooltip", json::array({axis_field("run", "nominal", "run"), axis_field("cause", "nominal", "cause"),
                               axis_field("struck_day", "quantitative", "struck (day)"),
                               axis_field("down_h", "quantitative", "down (h)"),
                               axis_field("lost_iterations", "quantitative", "iterations lost")})}};
  spec.erase("height");
  return Chart{"Interruptions over the whole run",
               "The run drawn from the seed (summary.json result.projection.failures.timeline): each bar from the "
               "step that noticed a failure to the job's return, after detection, any repair waited for, the restart "
               "and reading the checkpoint back.",
               std::move(spec)};
}

std::optional<Chart> gantt(const ReportRun& run, bool several) {
  if (run.gantt.empty()) return std::nullopt;
  json spec = base_spec(run.gantt, "timeline of the first iterations");
  spec["mark"] = "bar";
  spec["encoding"] = {
      {"y", {{"field", "host"}, {"type", "nominal"}, {"title", nullptr}, {"sort", {{"field", "rank"}}}}},
      {"x", {{"field", "start_ms"}, {"type", "quantitative"}, {"title", "simulated time (ms)"}}},
      {"x2", {{"field", "end_ms"}}},
      {"color", {{"field", "kind"}, {"type", "nominal"}, {"title", "span"},
                 {"scale", {{"domain", {"compute", "communication", "overlapped communication", "wait", "pipeline bubble"}},
                            {"range", {"#4c78a8", "#f58518", "#ffbf79", "#e45756", "#b279a2"}}}}}},
      {"tooltip", json::array({axis_field("host", "nominal", "host"), axis_field("kind", "nominal", "span"),
                               axis_field("start_ms", "quantitative", "from (ms)"), axis_field("end_ms", "quantitative", "to (ms)")})}};
  spec.erase("height");
  // A trace without iteration spans (a pipeline's stages mark passes, not iterations) is drawn from its start.
  std::string covered = run.gantt_iterations > 0
                            ? fmt::format("The first {} iteration{} of the run's timeline", run.gantt_iterations,
                                          run.gantt_iterations == 1 ? "" : "s")
                            : std::string("The start of the run's timeline");
  if (run.gantt_cut_ms) {
    covered += fmt::format(", cut at {:.6g} ms: the view draws {} spans at most", *run.gantt_cut_ms, kGanttSpans);
  }
  return Chart{several ? "Timeline of the first iterations: " + run.label : "Timeline of the first iterations",
               covered + ": the spans trace.json holds (outputs.trace: true writes it; Perfetto opens it with every "
                         "message as an arrow).",
               std::move(spec)};
}

}  // namespace

std::vector<Chart> run_charts(const std::vector<ReportRun>& runs) {
  std::vector<Chart> charts;
  const auto add = [&charts](std::optional<Chart> chart) {
    if (chart) charts.push_back(std::move(*chart));
  };
  add(curve(runs, "loss", "sim_time_s"));
  add(curve(runs, "loss", "iteration"));
  add(curve(runs, "loss", "bytes_sent"));
  add(curve(runs, "accuracy", "sim_time_s"));
  add(curve(runs, "accuracy", "iteration"));
  add(per_iteration(runs, "iteration_s", "Iteration time", "iteration time (s)",
                    "Timing-only runs: each iteration's simulated time, as worker 0 finished it."));
  add(per_iteration(runs, "samples_per_s", "Throughput", "samples per second",
                    "Samples of one iteration (all replicas) over its time."));
  charts.push_back(time_per_host(runs));
  add(busiest_links(runs));
  add(staleness(runs));
  add(energy(runs));
  add(interruptions(runs));
  // One Gantt view per run with a timeline, up to four: beyond, they would bury the rest.
  std::size_t gantts = 0;
  for (const ReportRun& run : runs) {
    if (gantts == 4) break;
    if (std::optional<Chart> chart = gantt(run, runs.size() > 1)) {
      charts.push_back(std::move(*chart));
      ++gantts;
    }
  }
  return charts;
}

}  // namespace dtsim::analysis
