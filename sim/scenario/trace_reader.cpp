#include "sim/scenario/trace_reader.hpp"

#include "sim/core/input_file.hpp"
#include "sim/scenario/named_values.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace dtsim::scenario {
namespace {

/// Rows `time,factor` (a header line and blank lines allowed); times in seconds.
void read_trace_file(const std::filesystem::path& path, const core::SourcePosition& named_at, const std::string& key,
                     Trace& out, core::DiagnosticSink& sink) {
  std::string problem = core::input_file_problem(path, core::kDataFileLimit);
  std::ifstream in(path);
  if (problem.empty() && !in) problem = std::strerror(errno);
  if (!problem.empty()) {
    sink.error(named_at, key, fmt::format("cannot read the trace file '{}': {}", path.generic_string(), problem),
               "the path is relative to the scenario file that names it");
    return;
  }
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos || line.front() == '#') continue;
    const std::size_t comma = line.find(',');
    const auto time = comma == std::string::npos ? std::nullopt : parse_number(line.substr(0, comma));
    const auto factor = comma == std::string::npos ? std::nullopt : parse_number(line.substr(comma + 1));
    if (!time || !factor) {
      if (number == 1 && out.points.empty()) continue;  // a header
      sink.error(core::SourcePosition(path.generic_string(), number, 1), key,
                 fmt::format("expected a row 'time,factor' (seconds, fraction of full rate), got \"{}\"", line),
                 "for example 12.5,0.5");
      return;
    }
    out.points.push_back({*time, *factor});
    const core::SourcePosition at(path.generic_string(), number, 1);
    if (*factor <= 0.0 || *factor > 1.0) {
      sink.error(at, key, fmt::format("a factor is a fraction of full rate in (0, 1], got {}", *factor));
      return;
    }
    if (*time < 0.0 || (out.points.size() > 1 && *time <= out.points[out.points.size() - 2].at_s)) {
      sink.error(at, key, fmt::format("times must be non-negative and increasing, and {} is not", *time));
      return;
    }
  }
  if (out.points.empty()) sink.error(named_at, key, fmt::format("the trace file '{}' has no rows", path.generic_string()));
}

}  // namespace

Trace read_trace(const View& trace, core::DiagnosticSink& sink) {
  Trace out;
  if (trace.has("file") == trace.has("points")) {
    sink.error(trace.where(), trace.path(), "a trace needs either points or file", "for example points: [{at: 0s, factor: 1}, {at: 10s, factor: 0.5}]");
    return out;
  }
  if (trace.has("file")) {
    const core::SourcePosition at = trace.where("file");
    read_trace_file(std::filesystem::path(at.file).parent_path() / trace.text("file"), at, trace.path() + ".file", out, sink);
  } else {
    const ConfigNode* points = trace.at("points").node();
    for (std::size_t i = 0; i < points->items.size(); ++i) {
      const View point(&points->items[i], fmt::format("{}.points[{}]", trace.path(), i));
      const double at = point.quantity("at", core::parse_duration)->value();
      if (!out.points.empty() && at <= out.points.back().at_s) {
        sink.error(point.where("at"), point.path() + ".at",
                   fmt::format("times must increase, and {} s follows {} s", at, out.points.back().at_s));
      }
      out.points.push_back({at, *point.number("factor")});
    }
  }
  static_assert(kTraceChangesPerSecondLimit == 1e6, "the message below calls the limit a million");
  if (auto period = trace.quantity("period", core::parse_duration)) {
    out.period_s = period->value();
    if (!out.points.empty() && *out.period_s <= out.points.back().at_s) {
      sink.error(trace.where("period"), trace.path() + ".period",
                 fmt::format("the period ({} s) must end after the last point ({} s)", *out.period_s,
                             out.points.back().at_s),
                 "a periodic trace repeats its points every period");
    }
    const auto changes = static_cast<double>(out.points.size());
    if (*out.period_s > 0.0 && changes / *out.period_s > kTraceChangesPerSecondLimit) {
      sink.error(trace.where("period"), trace.path() + ".period",
                 fmt::format("{} points every {} change the factor {:.3g} times per simulated second, more than "
                             "the million a trace may",
                             out.points.size(), core::format_duration(core::Seconds(*out.period_s)),
                             changes / *out.period_s),
                 fmt::format("use a period of at least {}", core::format_duration(core::Seconds(
                                                                changes / kTraceChangesPerSecondLimit))));
    }
  }
  return out;
}

std::vector<Trace> read_speed_traces(const View& root, int workers, core::DiagnosticSink& sink) {
  std::vector<Trace> out(static_cast<std::size_t>(std::max(workers, 0)));
  const ConfigNode* rules = root.at("stragglers").node();
  bool any = false;
  for (std::size_t i = 0; rules != nullptr && i < rules->items.size(); ++i) {
    const View rule(&rules->items[i], fmt::format("stragglers[{}]", i));
    if (!rule.has("trace")) continue;
    any = true;
    const Trace trace = read_trace(rule.at("trace"), sink);
    std::vector<int> ranks;
    if (const ConfigNode* named = rule.at("workers").node()) {
      for (const auto& item : named->items) ranks.push_back(static_cast<int>(parse_integer(item.scalar).value_or(-1)));
    } else {
      for (int r = 0; r < workers; ++r) ranks.push_back(r);
    }
    for (const int rank : ranks) {
      if (rank < 0 || rank >= workers) continue;  // reported with the straggler rules
      Trace& slot = out[static_cast<std::size_t>(rank)];
      if (!slot.empty()) {
        sink.error(rule.key_where("trace"), rule.path() + ".trace",
                   fmt::format("worker {} already follows a speed trace from an earlier rule", rank),
                   "give each worker one trace");
        break;
      }
      slot = trace;
    }
  }
  if (!any) out.clear();
  return out;
}

std::vector<LinkTrace> read_link_traces(const View& root, core::DiagnosticSink& sink) {
  std::vector<LinkTrace> out;
  const ConfigNode* rules = root.at("link_traces").node();
  for (std::size_t i = 0; rules != nullptr && i < rules->items.size(); ++i) {
    const View rule(&rules->items[i], fmt::format("link_traces[{}]", i));
    LinkTrace trace;
    for (const auto& item : rule.at("links").node()->items) trace.links.push_back({item.scalar, item.where});
    trace.trace = read_trace(rule.at("trace"), sink);
    out.push_back(std::move(trace));
  }
  return out;
}

std::vector<BackgroundTraffic> read_background_traffic(const View& root) {
  std::vector<BackgroundTraffic> out;
  const ConfigNode* rules = root.at("background_traffic").node();
  for (std::size_t i = 0; rules != nullptr && i < rules->items.size(); ++i) {
    const View rule(&rules->items[i], fmt::format("background_traffic[{}]", i));
    BackgroundTraffic traffic;
    for (const auto& item : rule.at("links").node()->items) traffic.links.push_back({item.scalar, item.where});
    traffic.bytes_per_s = rule.quantity("rate", core::parse_bandwidth)->value();
    out.push_back(std::move(traffic));
  }
  return out;
}

std::vector<LinkCondition> read_link_conditions(const View& root) {
  std::vector<LinkCondition> out;
  const ConfigNode* rules = root.at("link_conditions").node();
  for (std::size_t i = 0; rules != nullptr && i < rules->items.size(); ++i) {
    const View rule(&rules->items[i], fmt::format("link_conditions[{}]", i));
    LinkCondition condition;
    if (rule.has("links")) {
      for (const auto& item : rule.at("links").node()->items) condition.links.push_back({item.scalar, item.where});
    }
    if (rule.has("class")) condition.link_class = rule.located("class");
    condition.loss = rule.number("loss").value_or(0.0);
    condition.streams = static_cast<int>(rule.filled_integer("streams"));
    if (auto jitter = rule.quantity("jitter", core::parse_duration)) condition.jitter_s = jitter->value();
    condition.jitter_distribution = value_named(jitter_distributions(), rule.filled_text("jitter_distribution"));
    condition.where = rule.where();
    out.push_back(std::move(condition));
  }
  return out;
}

}  // namespace dtsim::scenario
