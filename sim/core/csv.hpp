#pragma once
// CSV fields as RFC 4180 writes them: the result files' text cells (a sweep point "algorithm=ring,workers=4",
// a straggler distribution "lognormal(0, 0.5)") hold commas, which must not split a row.

#include <string>
#include <string_view>
#include <vector>

namespace dtsim::core {

/// `text` as one CSV field: as it is, or in double quotes (inner quotes doubled) when it holds a comma, a
/// double quote or a line break. A text a spreadsheet would run as a formula (=1+1, @SUM, -cmd; not a
/// number such as -0.5) gets a leading apostrophe, which csv_cells takes off again.
std::string csv_field(std::string_view text);

/// The fields of one CSV line, quoted fields unquoted ("" inside them is one ") and csv_field's apostrophe
/// taken off. Nothing is trimmed.
std::vector<std::string> csv_cells(std::string_view line);

/// The 1-based column where each field of `line` starts, as csv_cells splits it: for errors that point at
/// a cell.
std::vector<int> csv_cell_columns(std::string_view line);

}  // namespace dtsim::core
