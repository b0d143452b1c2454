#include "sim/app/collective_measurements.hpp"

#include "sim/core/csv.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/name_match.hpp"

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

[[noreturn]] void refuse_at(const std::filesystem::path& path, int line, const std::string& key, std::string message,
                            std::string hint = {}) {
  core::Diagnostic d;
  d.where = core::SourcePosition(path.string(), line, 1);
  d.key = key;
  d.message = std::move(message);
  d.hint = std::move(hint);
  throw core::InputError(std::move(d));
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

std::vector<std::string> csv_header(std::istream& in, int& line_number) {
  std::string line;
  line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.front() != '#') break;
  }
  return csv_cells(line);
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
    const std::optional<std::size_t> time_at = column_of(header, "time");
    const std::optional<std::size_t> algbw_at = column_of(header, "algbw");
    const std::optional<std::size_t> busbw_at = column_of(header, "busbw");
    if (!time_at || !algbw_at || !busbw_at) {
      refuse_at(path, number_of_line, "measurements", "the table's header names no time, algbw and busbw columns",
                "give the output of an nccl-tests program as it prints it");
    }
    const auto size = number(w[0]);
    if (!size) continue;  // a line of another program's output between the rows
    if (w.size() <= *busbw_at) {
      refuse_at(path, number_of_line, "measurements", fmt::format("the row has {} columns, the header {}", w.size(), header.size()));
    }
    const auto time_us = number(w[*time_at]);
    const auto algbw = number(w[*algbw_at]);
    const auto busbw = number(w[*busbw_at]);
    if (!time_us || !algbw || !busbw || !(*time_us > 0.0) || !(*size > 0.0)) {
      refuse_at(path, number_of_line, "measurements",
                "expected a size, a time in microseconds and two bandwidths" + core::ExcerptOnce().got(line));
    }
    if (*size > kLargestSizeBytes) {
      refuse_at(path, number_of_line, "measurements",
                fmt::format("expected a size of at most {}{}", kLargestSizeText, core::ExcerptOnce().got(w[0])),
                "give the output of an nccl-tests program as it prints it");
    }
    if (const auto redop_at = column_of(header, "redop"); redop_at && w.size() > *redop_at) redop = w[*redop_at];
    if (*algbw > 0.01) factors.push_back(*busbw / *algbw);
    CollectiveMeasurement row;
    row.scenario_file = scenario_file;
    row.label = scenario_file.filename().string();
    row.size_bytes = *size;
    row.time_s = *time_us * 1e-6;
    row.busbw_gb_per_s = *busbw;
    row.line = number_of_line;
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
  int header_line = 0;
  const std::vector<std::string> header = csv_header(in, header_line);
  std::string line;
  const auto find = [&](const std::string& name) -> std::optional<std::size_t> {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) return std::nullopt;
    return static_cast<std::size_t>(it - header.begin());
  };
  const char* hint = "the first line names the columns: scenario,operation,size_B and busbw_GBps or time_us";
  for (const char* name : {"scenario", "operation", "size_B"}) {
    if (!find(name)) refuse_at(path, header_line, name, fmt::format("the header has no column '{}'", name), hint);
  }
  const auto busbw_at = find("busbw_GBps");
  const auto time_at = find("time_us");
  if (!busbw_at && !time_at) refuse_at(path, header_line, "busbw_GBps", "the header has neither busbw_GBps nor time_us", hint);
  const auto bound_at = find("bound_percent");
  std::vector<CollectiveMeasurement> rows;
  // Every bad cell is reported, at its column, so that one run names all a user must fix.
  core::DiagnosticSink problems;
  core::ExcerptOnce excerpt;
  for (int number_of_line = header_line + 1; std::getline(in, line); ++number_of_line) {
    if (line.find_first_not_of(" \t\r") == std::string::npos || line.front() == '#') continue;
    if (named_enough(problems, path, number_of_line)) break;
    const std::vector<std::string> cells = csv_cells(line);
    const std::vector<int> columns = core::csv_cell_columns(line);
    const auto cell = [&](std::size_t at) { return at < cells.size() ? cells[at] : std::string(); };
    bool good = true;
    const auto bad = [&](std::size_t at, const std::string& key, std::string message, std::string why = {}) {
      const int column = at < columns.size() ? columns[at] : static_cast<int>(line.size()) + 1;
      problems.error(core::SourcePosition(path.string(), number_of_line, column), key, std::move(message), std::move(why));
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
    row.label = cell(*find("scenario"));
    row.scenario_file = path.parent_path() / row.label;
    const std::string op = cell(*find("operation"));
    if (const auto operation = comm::operation_named(op)) {
      row.operation = *operation;
    } else {
      std::vector<std::string> valid;
      for (const comm::Operation o : comm::all_operations()) valid.emplace_back(comm::to_string(o));
      bad(*find("operation"), "operation", "expected a collective" + excerpt.got(op),
          fmt::format("valid: {}", core::join_names(valid)));
    }
    row.size_bytes = positive(*find("size_B"), "size_B", "number of bytes");
    if (const std::size_t size_at = *find("size_B"); row.size_bytes > kLargestSizeBytes) {
      bad(size_at, "size_B",
          fmt::format("expected a number of bytes of at most {}{}", kLargestSizeText, excerpt.got(cell(size_at))),
          "give each size in bytes, as nccl-tests prints it");
    }
    if (time_at) {
      row.time_s = positive(*time_at, "time_us", "time") * 1e-6;
    } else {
      row.busbw_gb_per_s = positive(*busbw_at, "busbw_GBps", "bandwidth");
    }
    if (bound_at) row.bound_percent = positive(*bound_at, "bound_percent", "percentage");
    if (good) rows.push_back(row);
  }
  problems.throw_if_any();
  if (rows.empty()) refuse_at(path, header_line, "measurements", "the file has no measurement rows");
  return rows;
}

}  // namespace dtsim::app
