#include "sim/metrics/trace_json.hpp"

#include "sim/core/version.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

namespace dtsim::metrics {
namespace {

/// Microseconds, the format's unit, in the shortest text that reads back as the same double: a host's spans
/// add up to its totals in summary.json.
std::string us(double seconds) { return fmt::format("{}", seconds * 1e6); }

std::string quoted(const std::string& text) { return nlohmann::json(text).dump(); }

/// Appends events separated by commas.
class EventList {
 public:
  void add(const std::string& event) {
    if (!text_.empty()) text_ += ",\n";
    text_ += event;
  }
  [[nodiscard]] const std::string& text() const { return text_; }

 private:
  std::string text_;
};

void name_process(EventList& events, std::size_t pid, const std::string& name) {
  events.add(fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"tid":0,"args":{{"name":{}}}}})", pid, quoted(name)));
  events.add(fmt::format(R"({{"ph":"M","name":"process_sort_index","pid":{},"tid":0,"args":{{"sort_index":{}}}}})", pid, pid));
}

void name_thread(EventList& events, std::size_t pid, int tid, const std::string& name) {
  events.add(fmt::format(R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":{}}}}})", pid, tid, quoted(name)));
}

void add_span(EventList& events, std::string_view name, std::size_t pid, int tid, double start, double end,
              const std::string& args = {}) {
  events.add(fmt::format(R"({{"name":"{}","cat":"{}","ph":"X","pid":{},"tid":{},"ts":{},"dur":{}{}}})", name, name, pid,
                         tid, us(start), us(end - start), args.empty() ? "" : ",\"args\":" + args));
}

/// The link directions with the highest utilization over the run, most utilized first.
std::vector<std::size_t> busiest_links(const RunRecord& record) {
  std::vector<std::size_t> order(record.links.size());
  std::iota(order.begin(), order.end(), 0);
  const auto utilization = [&record](std::size_t i) {
    const LinkLoad& link = record.links[i];
    return link.bandwidth_bytes_per_s > 0.0 ? link.bytes / link.bandwidth_bytes_per_s : 0.0;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return utilization(a) > utilization(b); });
  while (!order.empty() && record.links[order.back()].bytes <= 0.0) order.pop_back();
  order.resize(std::min(order.size(), kTracedLinks));
  return order;
}

void add_link_counters(EventList& events, std::size_t pid, const RunRecord& record, const Timeline& timeline) {
  for (const std::size_t link : busiest_links(record)) {
    const LinkLoad& load = record.links[link];
    const std::string name = quoted(fmt::format("link {} -> {}", load.from, load.to));
    double since = 0.0;
    double carried = 0.0;
    for (const TimelineIteration& it : timeline.iterations) {
      if (link >= it.link_bytes.size() || it.at_s <= since) continue;
      const double share = (it.link_bytes[link] - carried) / (load.bandwidth_bytes_per_s * (it.at_s - since));
      events.add(fmt::format(R"({{"name":{},"ph":"C","pid":{},"tid":0,"ts":{},"args":{{"utilization":{}}}}})", name, pid,
                             us(since), share));
      since = it.at_s;
      carried = it.link_bytes[link];
    }
    if (since > 0.0) {
      events.add(fmt::format(R"({{"name":{},"ph":"C","pid":{},"tid":0,"ts":{},"args":{{"utilization":0}}}})", name, pid, us(since)));
    }
  }
}

/// A loss for the counter track: JSON has no NaN or infinity, so a diverged value is left out.
std::string loss_args(const EvaluationRow& row) {
  std::string args;
  for (const auto& [key, value] : {std::pair{"train", row.train_loss}, std::pair{"validation", row.val_loss}}) {
    if (!std::isfinite(value)) continue;
    args += fmt::format("{}\"{}\":{}", args.empty() ? "" : ",", key, value);
  }
  return "{" + args + "}";
}

std::string_view traffic_name(Traffic traffic) {
  switch (traffic) {
    case Traffic::Data: return "data-parallel gradients";
    case Traffic::Tensor: return "tensor-parallel sums";
    case Traffic::Pipeline: return "pipeline activations";
    case Traffic::Zero: return "ZeRO parameter gathers";
    case Traffic::Expert: return "expert all-to-alls";
    case Traffic::Context: return "context keys and values";
  }
  return "unknown";
}

/// The names report.html's Gantt view colours by (analysis/report_charts.cpp).
std::string_view span_name(SpanKind kind) {
  switch (kind) {
    case SpanKind::Compute: return "compute";
    case SpanKind::Communication: return "communication";
    case SpanKind::OverlappedCommunication: return "overlapped communication";
    case SpanKind::Wait: return "wait";
    case SpanKind::Bubble: return "pipeline bubble";
  }
  return "unknown";
}

}  // namespace

std::string trace_json(const std::string& run_name, const RunRecord& record, const Timeline& timeline) {
  EventList events;
  const std::size_t run_pid = record.hosts.size();
  std::set<std::pair<std::int32_t, std::int32_t>> lanes;
  for (const TimelineSpan& span : timeline.spans) lanes.emplace(span.host, span.lane);
  for (const std::int32_t host : timeline.hosts) {
    const HostActivity& activity = record.hosts[static_cast<std::size_t>(host)];
    name_process(events, static_cast<std::size_t>(host), fmt::format("{} ({})", activity.name, activity.role));
    name_thread(events, static_cast<std::size_t>(host), 0, "main");
    if (lanes.count({host, 1}) > 0) {
      // A helper's waiting is shown, and, as in summary.json, not counted: the main actor was busy meanwhile.
      name_thread(events, static_cast<std::size_t>(host), 1,
                  activity.overlapped_communication_s > 0.0 ? "gradient stream" : "helper (waits not counted)");
    }
    if (lanes.count({host, 2}) > 0) name_thread(events, static_cast<std::size_t>(host), 2, "tensor overlap");
    if (lanes.count({host, 3}) > 0) name_thread(events, static_cast<std::size_t>(host), 3, "context ring");
    if (lanes.count({host, 4}) > 0) name_thread(events, static_cast<std::size_t>(host), 4, "expert exchange overlap");
  }
  // Model-parallel runs say what each transfer carried (tensor sums, pipeline activations, ...).
  const bool labelled = record.model_parallel_traffic();
  for (const TimelineSpan& span : timeline.spans) {
    const bool moving = span.kind == SpanKind::Communication || span.kind == SpanKind::OverlappedCommunication;
    add_span(events, span_name(span.kind), static_cast<std::size_t>(span.host), span.lane, span.start, span.end,
             labelled && moving ? fmt::format(R"({{"carries":"{}"}})", traffic_name(span.carries)) : std::string());
  }
  // Messages by when they left, from whom, to whom: messages received at one instant are heard in the
  // order their receivers happen to run, which is no part of the result.
  std::vector<TimelineMessage> messages = timeline.messages;
  std::stable_sort(messages.begin(), messages.end(), [](const TimelineMessage& a, const TimelineMessage& b) {
    return std::tie(a.start, a.from, a.to, a.to_lane, a.end, a.bytes) < std::tie(b.start, b.from, b.to, b.to_lane, b.end, b.bytes);
  });
  std::size_t flow = 0;
  for (const TimelineMessage& m : messages) {
    ++flow;
    events.add(fmt::format(R"({{"name":"message","cat":"message","ph":"s","id":{},"pid":{},"tid":0,"ts":{}}})", flow,
                           m.from, us(m.start)));
    events.add(fmt::format(R"({{"name":"message","cat":"message","ph":"f","bp":"e","id":{},"pid":{},"tid":{},"ts":{},"args":{{"bytes":{}}}}})",
                           flow, m.to, m.to_lane, us(m.end), m.bytes));
  }
  name_process(events, run_pid, "run");
  name_thread(events, run_pid, 0, "iterations (worker 0)");
  double since = 0.0;
  for (const TimelineIteration& it : timeline.iterations) {
    add_span(events, "iteration", run_pid, 0, since, it.at_s, fmt::format(R"({{"iteration":{}}})", it.iteration));
    since = it.at_s;
  }
  if (!timeline.checkpoints.empty()) name_thread(events, run_pid, 1, "checkpoints");
  for (const auto& [start, end] : timeline.checkpoints) add_span(events, "checkpoint", run_pid, 1, start, end);
  if (!record.failures.empty()) name_thread(events, run_pid, 2, "failures");
  for (const FailureRecord& f : record.failures) {
    if (f.at_s >= timeline.until_s) continue;
    add_span(events, "failure", run_pid, 2, f.at_s, f.noticed_s + f.downtime_s,
             fmt::format(R"({{"{}":{},"lost_steps":{},"left":{}}})", f.server ? "server" : "worker", f.worker,
                         f.lost_steps, f.left));
  }
  for (const LinkEvent& e : record.link_events) {
    if (e.at_s >= timeline.until_s) continue;
    events.add(fmt::format(R"({{"name":{},"cat":"link","ph":"i","s":"g","pid":{},"tid":0,"ts":{}}})",
                           quoted(fmt::format("{} {}", e.link, e.down ? "down" : "up")), run_pid, us(e.at_s)));
  }
  for (const EvaluationRow& row : record.evaluations) {
    events.add(fmt::format(R"({{"name":"loss","ph":"C","pid":{},"tid":0,"ts":{},"args":{}}})", run_pid,
                           us(row.sim_time_s), loss_args(row)));
  }
  add_link_counters(events, run_pid, record, timeline);
  nlohmann::ordered_json other = {{"dtsim_version", core::kDtsimVersion},
                                  {"run", run_name},
                                  {"simulated_s", record.simulated_s},
                                  {"hosts", record.hosts.size()},
                                  {"hosts_followed", timeline.hosts.size()}};
  if (!timeline.cut_reason.empty()) {
    other["until_s"] = timeline.until_s;
    other["cut"] = "spans and messages end at until_s: " + timeline.cut_reason;
  }
  return fmt::format("{{\"displayTimeUnit\":\"ms\",\n\"otherData\":{},\n\"traceEvents\":[\n{}\n]}}\n",
                     other.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace), events.text());
}

}  // namespace dtsim::metrics
