#include "sim/app/collective_measurements.hpp"

#include "sim/core/csv.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/name_match.hpp"
#include "sim/core/units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

namespace dtsim::app {
namespace {

/// The largest message a row may measure: 2^53 bytes, the scenario language's largest size (core::parse_size),
/// beyond which a size in a double no longer counts every byte and no count of floats holds it.
constexpr double kLargestSizeBytes = 9007199254740992.0;
constexpr const char* kLargestSizeText = "2^53 B (8192 TiB)";

[[noreturn]] void refuse_at_column(const std::filesystem::path& path, int line, int column, const std::string& key,
                                   std::string message, std::string hint = {}) {
  core::Diagnostic d;
  d.where = core::SourcePosition(path.string(), line, column);
  d.key = key;
  d.message = std::move(message);
  d.hint = std::move(hint);
  throw core::InputError(std::move(d));
}

[[noreturn]] void refuse_at(const std::filesystem::path& path, int line, const std::string& key, std::string message,
                            std::string hint = {}) {
  refuse_at_column(path, line, 1, key, std::move(message), std::move(hint));
}

std::optional<double> number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

/// A line as the program printed it: mpirun's "[1,0]<stdout>:" tag removed.
std::string untagged(const std::string& line) {
  const auto tag = line.find("<stdout>:");
  return tag == std::string::npos ? line : line.substr(tag + 9);
}

/// The 1-based column of `raw` (a line as read, mpirun's tag included) where word `index` of its untagged text
/// starts, as words() splits it: for errors that point at one figure of a row.
int word_column(const std::string& raw, std::size_t index) {
  const std::string line = untagged(raw);
  const char* blanks = " \t\n\v\f\r";
  std::size_t at = line.find_first_not_of(blanks);
  for (std::size_t w = 0; w < index && at != std::string::npos; ++w) {
    at = line.find_first_not_of(blanks, line.find_first_of(blanks, at));
  }
  return static_cast<int>(raw.size() - line.size() + (at == std::string::npos ? line.size() : at)) + 1;
}

/// The collective of an nccl-tests program name (all_reduce_perf -> allreduce).
std::optional<comm::Operation> operation_of_program(const std::string& program) {
  static const std::vector<std::pair<std::string, comm::Operation>> programs{
      {"all_reduce_perf", comm::Operation::allreduce},         {"reduce_scatter_perf", comm::Operation::reduce_scatter},
      {"all_gather_perf", comm::Operation::allgather},         {"broadcast_perf", comm::Operation::broadcast},
      {"reduce_perf", comm::Operation::reduce},                {"alltoall_perf", comm::Operation::all_to_all}};
  for (const auto& [name, operation] : programs) {
    if (program == name) return operation;
  }
  return std::nullopt;
}

/// Where the header (of a row: one word each) names `name`, first; the first "time", "algbw" and "busbw"
/// are out of place.
std::optional<std::size_t> column_of(const std::vector<std::string>& header, const std::string& name) {
  const auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) return std::nullopt;
  return static_cast<std::size_t>(it - header.begin());
}

/// The collective whose bus-bandwidth factor the rows show (busbw / algbw, their median), on `ranks` ranks.
std::optional<comm::Operation> operation_of_factors(std::vector<double> factors, int ranks, const std::string& redop) {
  if (ranks <= 1 || factors.empty()) return std::nullopt;
  // busbw = algbw x the collective's factor: 2(p-1)/p for allreduce, (p-1)/p for reduce-scatter and
  // allgather, 1 for broadcast and reduce; the reduction column tells each pair apart.
  std::sort(factors.begin(), factors.end());
  const double factor = factors[factors.size() / 2];
  const double p = ranks;
  const bool reduces = redop != "none";
  if (std::abs(factor - 2.0 * (p - 1) / p) < 0.02 * factor) return comm::Operation::allreduce;
  if (std::abs(factor - (p - 1) / p) < 0.02) return reduces ? comm::Operation::reduce_scatter : comm::Operation::allgather;
  if (std::abs(factor - 1.0) < 0.02) return reduces ? comm::Operation::reduce : comm::Operation::broadcast;
  return std::nullopt;
}

/// The out-of-place figures of one row of nccl-tests' table: `w` the words of line `line_number` of `path`
/// (`raw` as read, mpirun's tag included), `size` its first; `header` names time, algbw and busbw. Adds the
/// row's busbw / algbw to `factors`. Throws core::InputError naming what cannot be read.
CollectiveMeasurement nccl_tests_row(const std::filesystem::path& path, int line_number, const std::string& raw,
                                     const std::vector<std::string>& w, const std::vector<std::string>& header,
                                     double size, std::vector<double>& factors) {
  const std::size_t time_at = *column_of(header, "time");
  const std::size_t algbw_at = *column_of(header, "algbw");
  const std::size_t busbw_at = *column_of(header, "busbw");
  // A header may list the three in any order: the row must reach the last of them.
  if (w.size() <= std::max({time_at, algbw_at, busbw_at})) {
    refuse_at(path, line_number, "measurements",
              fmt::format("the row has {} columns, the header {}", w.size(), header.size()));
  }
  const auto time_us = number(w[time_at]);
  const auto algbw = number(w[algbw_at]);
  const auto busbw = number(w[busbw_at]);
  if (!time_us || !algbw || !busbw || !(*time_us > 0.0) || !(size > 0.0)) {
    refuse_at(path, line_number, "measurements",
              "expected a size, a time in microseconds and two bandwidths" + core::ExcerptOnce().got(untagged(raw)));
  }
  if (size > kLargestSizeBytes) {
    refuse_at(path, line_number, "measurements",
              fmt::format("expected a size of at most {}{}", kLargestSizeText, core::ExcerptOnce().got(w[0])),
              "give the output of an nccl-tests program as it prints it");
  }
  if (!is_measurable_duration(*time_us * 1e-6)) {
    refuse_at_column(path, line_number, word_column(raw, time_at), "measurements",
                     fmt::format("expected a time {}, in microseconds{}", measurable_duration_text(),
                                 core::ExcerptOnce().got(w[time_at])),
                     "give the output of an nccl-tests program as it prints it");
  }
  if (*algbw > 0.01) factors.push_back(*busbw / *algbw);
  CollectiveMeasurement row;
  row.size_bytes = size;
  row.time_s = *time_us * 1e-6;
  row.busbw_gb_per_s = *busbw;
  row.line = line_number;
  row.value_column = word_column(raw, time_at);
  return row;
}

/// Where a collective CSV's header puts its columns.
struct CollectiveColumns {
  std::size_t scenario = 0;
  std::size_t operation = 0;
  std::size_t size = 0;
  std::optional<std::size_t> busbw;
  std::optional<std::size_t> time;
  std::optional<std::size_t> bound;
};

/// The columns `header` of the collective CSV `path` names; throws core::InputError at the header for one it
/// lacks.
CollectiveColumns collective_columns(const std::filesystem::path& path, const CsvHeader& header) {
  const char* hint = "the first line names the columns: scenario,operation,size_B and busbw_GBps or time_us";
  const auto required = [&](const char* name) {
    const std::optional<std::size_t> at = column_of(header.cells, name);
    if (!at) refuse_at(path, header.line, name, fmt::format("the header has no column '{}'", name), hint);
    return *at;
  };
  CollectiveColumns out;
  out.scenario = required("scenario");
  out.operation = required("operation");
  out.size = required("size_B");
  out.busbw = column_of(header.cells, "busbw_GBps");
  out.time = column_of(header.cells, "time_us");
  if (!out.busbw && !out.time) {
    refuse_at(path, header.line, "busbw_GBps", "the header has neither busbw_GBps nor time_us", hint);
  }
  out.bound = column_of(header.cells, "bound_percent");
  return out;
}

}  // namespace

std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> out = core::csv_cells(line);
  for (std::string& cell : out) {
    const auto first = cell.find_first_not_of(" \t\r");
    const auto last = cell.find_last_not_of(" \t\r");
    cell = first == std::string::npos ? "" : cell.substr(first, last - first + 1);
  }
  return out;
}

CsvHeader csv_header(std::istream& in, const std::filesystem::path& path) {
  CsvHeader out;
  std::string line;
  while (std::getline(in, line)) {
    ++out.line;
    if (!line.empty() && line.front() != '#') break;
  }
  out.cells = csv_cells(line);
  out.columns = core::csv_cell_columns(line);
  const auto column = [&](std::size_t at) { return at < out.columns.size() ? out.columns[at] : 1; };
  for (std::size_t at = 1; at < out.cells.size(); ++at) {
    const auto end = out.cells.begin() + static_cast<std::ptrdiff_t>(at);
    const auto first = std::find(out.cells.begin(), end, out.cells[at]);
    if (out.cells[at].empty() || first == end) continue;
    refuse_at_column(path, out.line, column(at), "measurements",
                     fmt::format("the header names the column {} twice (first at column {})",
                                 core::quoted_excerpt(out.cells[at], core::ExcerptOnce::kLongest),
                                 column(static_cast<std::size_t>(first - out.cells.begin()))),
                     "name each column once: dtsim would read one of the two and ignore the other");
  }
  return out;
}

bool is_measurable_duration(double seconds) {
  const core::Magnitudes range = core::magnitudes_of(core::UnitFamily::Duration);
  return seconds >= range.smallest && seconds <= range.largest;
}

std::string measurable_duration_text() {
  const core::Magnitudes range = core::magnitudes_of(core::UnitFamily::Duration);
  return fmt::format("from {} to {}", range.smallest_text, range.largest_text);
}

std::string extra_cells_message(std::size_t cells, std::size_t named) {
  return fmt::format("the row has {} cells, and the header names {}", cells, named);
}

bool is_nccl_tests_output(const std::filesystem::path& path) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const std::vector<std::string> w = words(untagged(line));
    if (w.size() > 3 && w[0] == "#" && w[1] == "size" && w[2] == "count" &&
        std::find(w.begin(), w.end(), "busbw") != w.end()) {
      return true;
    }
  }
  return false;
}

std::vector<CollectiveMeasurement> read_nccl_tests(const std::filesystem::path& path,
                                                   const std::filesystem::path& scenario_file, int* ranks) {
  std::ifstream in(path);
  if (!in) refuse_at(path, 0, "measurements", "cannot read the file", "give the output of an nccl-tests program");
  static const std::regex rank_line(R"(^#\s+Rank\s+\d+\s)");
  static const std::regex program_line(R"(Collective test starting:\s*(\w+))");
  int rank_count = 0;
  std::optional<comm::Operation> named;
  std::vector<std::string> header;
  std::vector<CollectiveMeasurement> rows;
  std::vector<double> factors;  // busbw / algbw of each row, to tell the collective when the output does not
  std::string redop;
  int number_of_line = 0;
  for (std::string raw; std::getline(in, raw);) {
    ++number_of_line;
    const std::string line = untagged(raw);
    std::smatch match;
    if (std::regex_search(line, match, program_line)) {
      named = operation_of_program(match[1].str());
      if (!named) {
        refuse_at(path, number_of_line, "measurements",
                  fmt::format("{} is no collective dtsim simulates", core::quoted_excerpt(match[1].str(), core::ExcerptOnce::kLongest)),
                  "all_reduce_perf, reduce_scatter_perf, all_gather_perf, broadcast_perf or reduce_perf");
      }
      continue;
    }
    if (std::regex_search(line, rank_line)) {
      ++rank_count;
      continue;
    }
    const std::vector<std::string> w = words(line);
    if (w.empty()) continue;
    if (w[0] == "#") {
      if (header.empty() && w.size() > 3 && w[1] == "size" && w[2] == "count") header.assign(w.begin() + 1, w.end());
      continue;
    }
    if (header.empty() || w[0].front() == '#') continue;
    if (!column_of(header, "time") || !column_of(header, "algbw") || !column_of(header, "busbw")) {
      refuse_at(path, number_of_line, "measurements", "the table's header names no time, algbw and busbw columns",
                "give the output of an nccl-tests program as it prints it");
    }
    const auto size = number(w[0]);
    if (!size) continue;  // a line of another program's output between the rows
    CollectiveMeasurement row = nccl_tests_row(path, number_of_line, raw, w, header, *size, factors);
    if (const auto redop_at = column_of(header, "redop"); redop_at && w.size() > *redop_at) redop = w[*redop_at];
    row.scenario_file = scenario_file;
    row.label = scenario_file.filename().string();
    rows.push_back(row);
  }
  if (rows.empty()) refuse_at(path, number_of_line, "measurements", "the file has no rows of an nccl-tests table");
  if (ranks != nullptr) *ranks = rank_count;
  const std::optional<comm::Operation> operation = named ? named : operation_of_factors(factors, rank_count, redop);
  if (!operation) {
    refuse_at(path, 1, "measurements", "cannot tell which collective the output measures",
              "keep the lines nccl-tests prints before its table (\"# Collective test starting: ...\" and the "
              "\"#  Rank\" lines)");
  }
  for (CollectiveMeasurement& row : rows) row.operation = *operation;
  return rows;
}

bool named_enough(core::DiagnosticSink& problems, const std::filesystem::path& path, int line) {
  if (problems.size() < core::kNamedProblems) return false;
  problems.error(core::SourcePosition(path.string(), line, 1), "measurements",
                 fmt::format("the rows from here on are not checked: the first {} problems are named above",
                             core::kNamedProblems));
  return true;
}

std::vector<CollectiveMeasurement> read_collective_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) refuse_at(path, 0, "measurements", "cannot read the file");
  const CsvHeader header = csv_header(in, path);
  const CollectiveColumns table = collective_columns(path, header);
  std::vector<CollectiveMeasurement> rows;
  // Every bad cell is reported, at its column, so that one run names all a user must fix.
  core::DiagnosticSink problems;
  core::ExcerptOnce excerpt;
  std::string line;
  for (int number_of_line = header.line + 1; std::getline(in, line); ++number_of_line) {
    if (line.find_first_not_of(" \t\r") == std::string::npos || line.front() == '#') continue;
    if (named_enough(problems, path, number_of_line)) break;
    const std::vector<std::string> cells = csv_cells(line);
    const std::vector<int> columns = core::csv_cell_columns(line);
    const auto cell = [&](std::size_t at) { return at < cells.size() ? cells[at] : std::string(); };
    const auto column = [&](std::size_t at) {
      return at < columns.size() ? columns[at] : static_cast<int>(line.size()) + 1;
    };
    bool good = true;
    const auto bad = [&](std::size_t at, const std::string& key, std::string message, std::string why = {}) {
      problems.error(core::SourcePosition(path.string(), number_of_line, column(at)), key, std::move(message),
                     std::move(why));
      good = false;
    };
    const auto positive = [&](std::size_t at, const std::string& key, const char* expected) -> double {
      const auto value = number(cell(at));
      if (value && *value > 0.0) return *value;
      bad(at, key, fmt::format("expected a positive {}{}", expected, excerpt.got(cell(at))));
      return 0.0;
    };
    CollectiveMeasurement row;
    row.line = number_of_line;
    row.label = cell(table.scenario);
    row.scenario_file = path.parent_path() / row.label;
    const std::string op = cell(table.operation);
    if (const auto operation = comm::operation_named(op)) {
      row.operation = *operation;
    } else {
      std::vector<std::string> valid;
      for (const comm::Operation o : comm::all_operations()) valid.emplace_back(comm::to_string(o));
      bad(table.operation, "operation", "expected a collective" + excerpt.got(op),
          fmt::format("valid: {}", core::join_names(valid)));
    }
    row.size_bytes = positive(table.size, "size_B", "number of bytes");
    if (row.size_bytes > kLargestSizeBytes) {
      bad(table.size, "size_B",
          fmt::format("expected a number of bytes of at most {}{}", kLargestSizeText, excerpt.got(cell(table.size))),
          "give each size in bytes, as nccl-tests prints it");
    }
    if (table.time) {
      const double time_us = positive(*table.time, "time_us", "time");
      if (time_us > 0.0 && !is_measurable_duration(time_us * 1e-6)) {
        bad(*table.time, "time_us",
            fmt::format("expected a time {}, in microseconds{}", measurable_duration_text(),
                        excerpt.got(cell(*table.time))),
            "give each size's time in microseconds, as nccl-tests prints it");
      }
      row.time_s = time_us * 1e-6;
    } else {
      row.busbw_gb_per_s = positive(*table.busbw, "busbw_GBps", "bandwidth");
    }
    row.value_column = column(table.time ? *table.time : *table.busbw);
    if (table.bound) row.bound_percent = positive(*table.bound, "bound_percent", "percentage");
    if (cells.size() > header.cells.size()) {
      const std::string extra = excerpt.got(cells[header.cells.size()]);
      bad(header.cells.size(), "measurements", extra_cells_message(cells.size(), header.cells.size()) + extra,
          kExtraCellsHint);
    }
    if (good) rows.push_back(row);
  }
  problems.throw_if_any();
  if (rows.empty()) refuse_at(path, header.line, "measurements", "the file has no measurement rows");
  return rows;
}

}  // namespace dtsim::app
