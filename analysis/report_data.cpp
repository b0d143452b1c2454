#include "analysis/report_data.hpp"

#include "analysis/run_summary.hpp"
#include "sim/core/csv.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/input_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string_view>
#include <utility>

namespace dtsim::analysis {
namespace {

nlohmann::json cell_value(const std::string& cell) {
  if (cell.empty()) return nullptr;
  char* end = nullptr;
  const double value = std::strtod(cell.c_str(), &end);
  if (end != cell.c_str() + cell.size()) return cell;
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

void emit(YAML::Emitter& out, const nlohmann::json& value) {
  if (value.is_object()) {
    out << YAML::BeginMap;
    for (const auto& [key, item] : value.items()) {
      out << YAML::Key << key << YAML::Value;
      emit(out, item);
    }
    out << YAML::EndMap;
  } else if (value.is_array()) {
    out << YAML::BeginSeq;
    for (const auto& item : value) emit(out, item);
    out << YAML::EndSeq;
  } else if (value.is_string()) {
    out << value.get<std::string>();
  } else if (value.is_null()) {
    out << YAML::Null;
  } else {
    out << value.dump();
  }
}

/// The Gantt view's spans: those of the hosts' processes that start before the end of the timeline's
/// kGanttIterations-th iteration, at most kGanttSpans of them (the earliest). Past kGanttSpans the view ends where
/// the first span left out starts: every span is drawn up to there and none beyond, so that no host looks idle
/// where its spans were dropped.
void read_gantt(const std::string& trace_text, const nlohmann::json& summary, ReportRun& run) {
  const nlohmann::json trace = nlohmann::json::parse(trace_text);
  const std::size_t hosts = summary.at("hosts").size();
  double until_us = std::numeric_limits<double>::infinity();
  std::size_t iterations = 0;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") == "X" && e.at("name") == "iteration" && iterations < kGanttIterations) {
      ++iterations;
      until_us = e.at("ts").get<double>() + e.at("dur").get<double>();
    }
  }
  std::vector<const nlohmann::json*> spans;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X" || e.at("pid").get<std::size_t>() >= hosts) continue;
    if (iterations == kGanttIterations && e.at("ts").get<double>() >= until_us) continue;
    spans.push_back(&e);
  }
  std::stable_sort(spans.begin(), spans.end(), [](const auto* a, const auto* b) {
    return a->at("ts").template get<double>() < b->at("ts").template get<double>();
  });
  if (spans.size() > kGanttSpans) {
    const double cut_us = spans[kGanttSpans]->at("ts").get<double>();
    spans.resize(kGanttSpans);
    while (!spans.empty() && spans.back()->at("ts").get<double>() >= cut_us) spans.pop_back();
    until_us = std::min(until_us, cut_us);
    run.gantt_cut_ms = cut_us / 1e3;
  }
  run.gantt = nlohmann::json::array();
  for (const nlohmann::json* e : spans) {
    const std::size_t pid = e->at("pid").get<std::size_t>();
    const double start = e->at("ts").get<double>();
    std::string host = summary.at("hosts").at(pid).at("name").get<std::string>();
    if (e->at("tid").get<int>() > 0) host += " (stream)";
    run.gantt.push_back({{"host", host},
                         {"rank", 2 * pid + e->at("tid").get<std::size_t>()},
                         {"kind", e->at("name")},
                         {"start_ms", start / 1e3},
                         {"end_ms", std::min(start + e->at("dur").get<double>(), until_us) / 1e3}});
  }
  run.gantt_iterations = iterations;
}

}  // namespace

nlohmann::json csv_rows(const std::string& csv, const std::string& file, bool numbers_only) {
  nlohmann::json rows = nlohmann::json::array();
  std::istringstream in(csv);
  std::string line;
  if (!std::getline(in, line)) return rows;
  const std::vector<std::string> header = core::csv_cells(line);
  core::DiagnosticSink problems;
  const char* hint = "the file is not as dtsim wrote it; run the scenario again";
  for (int number = 2; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const std::vector<std::string> cells = core::csv_cells(line);
    if (cells.size() != header.size()) {
      problems.error(core::SourcePosition(file, number, 1), "",
                     fmt::format("a row of {} cells where the header names {}", cells.size(), header.size()), hint);
      continue;
    }
    nlohmann::json row = nlohmann::json::object();
    for (std::size_t i = 0; i < header.size(); ++i) {
      row[header[i]] = cell_value(cells[i]);
      if (numbers_only && row[header[i]].is_string()) {
        problems.error(core::SourcePosition(file, number, core::csv_cell_columns(line)[i]), "",
                       fmt::format("column {} holds text where dtsim writes a number", header[i]), hint);
      }
    }
    rows.push_back(std::move(row));
  }
  problems.throw_if_any();
  return rows;
}

std::string yaml_text(const nlohmann::json& value) {
  YAML::Emitter out;
  emit(out, value);
  return std::string(out.c_str()) + "\n";
}

namespace {

/// `label` with U+2028 and U+2029 written as the text \u2028 and \u2029: the charts sort runs by their labels,
/// and Vega-Lite compiles that order into an expression, in whose strings the two characters end a line.
std::string chart_label(std::string label) {
  for (const auto& [character, shown] : {std::pair<std::string_view, std::string_view>{"\u2028", "\\u2028"},
                                         std::pair<std::string_view, std::string_view>{"\u2029", "\\u2029"}}) {
    for (std::size_t at = label.find(character); at != std::string::npos; at = label.find(character, at + shown.size())) {
      label.replace(at, character.size(), shown);
    }
  }
  return label;
}

}  // namespace

ReportRun report_run(const std::map<std::string, std::string>& files, const std::string& where) {
  const auto text = [&files](const std::string& name) {
    const auto found = files.find(name);
    return found == files.end() ? std::string() : found->second;
  };
  ReportRun run;
  try {
    run.summary = nlohmann::json::parse(text("summary.json"));
    // A cluster run's page is drawn from its summary alone (report_command); here it would be read as one run's.
    if (is_cluster_summary(run.summary)) refuse_cluster_summary(where);
    refuse_foreign_summary(run.summary, where);
    run.label = run.summary.at("scenario").at("name").get<std::string>();
    const std::string point = run.summary.at("origin").value("sweep_point", std::string());
    if (!point.empty()) run.label += " [" + point + "]";
    run.label = chart_label(std::move(run.label));
    const std::filesystem::path folder = std::filesystem::path(where).parent_path();
    run.metrics = csv_rows(text("metrics.csv"), (folder / "metrics.csv").string(), true);
    run.links = csv_rows(text("links.csv"), (folder / "links.csv").string(), false);
    if (files.count("trace.json") > 0) read_gantt(text("trace.json"), run.summary, run);
  } catch (const nlohmann::json::exception& error) {
    throw core::InputError(core::Diagnostic{core::SourcePosition(where), "",
                                            fmt::format("not the results of a dtsim run: {}", error.what()),
                                            "give result folders that `dtsim run` wrote (a sweep's folder stands for all its points)"});
  }
  return run;
}

std::vector<ReportRun> read_report_runs(const std::vector<std::filesystem::path>& folders, const sync::SyncRegistry& strategies) {
  std::vector<ReportRun> runs;
  for (const auto& given : folders) {
    for (const auto& folder : run_folders(given)) {
      std::map<std::string, std::string> files;
      for (const char* name : {"summary.json", "metrics.csv", "links.csv", "trace.json"}) {
        std::string reason;
        // Results may be large (a thousand hosts' links); the limit only guards against reading a disk image.
        if (auto text = core::read_input_file(folder / name, std::uintmax_t{1} << 30U, reason)) {
          files.emplace(name, std::move(*text));
        }
      }
      if (files.count("summary.json") == 0) static_cast<void>(read_run_summary(folder, strategies));  // names the folder
      runs.push_back(report_run(files, (folder / "summary.json").string()));
    }
  }
  return runs;
}

}  // namespace dtsim::analysis
