#pragma once
// What a report draws from one finished run: its summary.json, metrics.csv and links.csv as JSON, and the
// first iterations' spans of its timeline (trace.json) for the Gantt view. Read from a result folder, or
// from the files a run is about to write.

#include "sim/sync/sync_strategy.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::analysis {

struct ReportRun {
  std::string label;        ///< the scenario's name, and its sweep point in brackets
  nlohmann::json summary;   ///< summary.json
  nlohmann::json metrics;   ///< metrics.csv: one object per row, numbers as numbers (nan and inf as null)
  nlohmann::json links;     ///< links.csv likewise
  /// Spans of the timeline's first iterations: {host, rank, kind, start_ms, end_ms}; empty without a trace.
  nlohmann::json gantt;
  std::size_t gantt_iterations = 0;  ///< iterations the Gantt view covers
  /// Where the Gantt view stops short of its iterations' end (ms of simulated time), its kGanttSpans spans drawn;
  /// none when it draws them whole.
  std::optional<double> gantt_cut_ms;
};

/// Iterations the Gantt view shows, and the spans it draws at most.
inline constexpr std::size_t kGanttIterations = 3;
inline constexpr std::size_t kGanttSpans = 6000;

/// A run from its files' text by name ("summary.json", "metrics.csv", "links.csv", "trace.json"; the
/// last optional). Throws core::InputError naming `where` when summary.json is not a dtsim summary.
ReportRun report_run(const std::map<std::string, std::string>& files, const std::string& where);

/// The runs `folders` stand for (a sweep's folder for its points, in sweep order), read from disk; `strategies`
/// describe their exchanges.
std::vector<ReportRun> read_report_runs(const std::vector<std::filesystem::path>& folders, const sync::SyncRegistry& strategies);

/// A CSV text with a header as an array of objects; cells that read as numbers become numbers, "nan",
/// "inf" and empty cells null. A row whose cells the header does not name one for one, or (`numbers_only`)
/// a cell of text, is an InputError naming `file`, line and column: a damaged result file is refused, never
/// drawn from in part.
nlohmann::json csv_rows(const std::string& csv, const std::string& file = "", bool numbers_only = false);

/// A JSON value as YAML text (the resolved scenario, as `dtsim explain` prints it).
std::string yaml_text(const nlohmann::json& value);

}  // namespace dtsim::analysis
