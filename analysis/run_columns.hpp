#pragma once
// The columns `dtsim compare --columns` may show, by name: each with its header, what it means, and its
// cell as the table and as CSV write it (a table's "-" and a CSV's empty cell where a run has no value).

#include "analysis/run_summary.hpp"

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::analysis {

struct RunColumn {
  std::string_view name;
  std::string_view description;
  bool numeric = true;  ///< right-aligned in the table
  std::function<std::string(const RunSummary&)> table_cell;
  std::function<std::string(const RunSummary&)> csv_cell;
};

/// Every column, in the order `dtsim compare --columns help` lists them.
const std::vector<RunColumn>& run_columns();

/// The columns named, "run" first whether named or not. Throws core::InputError at --columns naming an unknown
/// column, with the names there are.
std::vector<const RunColumn*> columns_named(std::span<const std::string> names);

/// An aligned table of `runs` in `columns`.
std::string columns_table(std::span<const RunSummary> runs, std::span<const RunColumn* const> columns);
/// The same as CSV, a header of the columns' names first.
std::string columns_csv(std::span<const RunSummary> runs, std::span<const RunColumn* const> columns);
/// "name: description" per line, for --columns help.
std::string columns_help();

}  // namespace dtsim::analysis
