#include "sim/core/csv.hpp"

#include <charconv>

namespace dtsim::core {

namespace {

/// A cell a spreadsheet would run as a formula: one that starts with = + - @, a tab or a carriage return
/// (OWASP, "CSV Injection"), unless it is a plain number (-0.5 is data), or one that starts with the
/// apostrophe that neutralises them, so that reading it back is exact.
bool needs_apostrophe(std::string_view text) {
  if (text.empty()) return false;
  constexpr std::string_view kTriggers = "=+-@\t\r";
  if (text.front() == '\'') return text.size() > 1 && (kTriggers.find(text[1]) != std::string_view::npos || text[1] == '\'');
  if (kTriggers.find(text.front()) == std::string_view::npos) return false;
  double number = 0.0;
  const char* begin = text.data() + (text.front() == '+' ? 1 : 0);
  const auto [end, error] = std::from_chars(begin, text.data() + text.size(), number);
  return error != std::errc() || end != text.data() + text.size();
}

}  // namespace

std::string csv_field(std::string_view text) {
  const std::string neutral = needs_apostrophe(text) ? "'" + std::string(text) : std::string(text);
  if (neutral.find_first_of(",\"\r\n") == std::string_view::npos) return neutral;
  std::string quoted = "\"";
  for (const char c : neutral) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

std::vector<std::string> csv_cells(std::string_view line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cell += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.push_back(std::move(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.push_back(std::move(cell));
  for (std::string& text : cells) {
    if (needs_apostrophe(text) && text.front() == '\'') text.erase(0, 1);
  }
  return cells;
}

std::vector<int> csv_cell_columns(std::string_view line) {
  std::vector<int> columns{1};
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '"') quoted = !quoted;
    if (line[i] == ',' && !quoted) columns.push_back(static_cast<int>(i) + 2);
  }
  return columns;
}

}  // namespace dtsim::core
