#pragma once
// Measured collective times for `dtsim calibrate`: nccl-tests output as its programs print it
// (all_reduce_perf and its kin), or a CSV of bus bandwidths by size (a published curve).

#include "sim/comm/collective_algorithm.hpp"
#include "sim/core/diagnostic.hpp"

#include <filesystem>
#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::app {

/// One measured size of one collective on the cluster a scenario describes.
struct CollectiveMeasurement {
  std::filesystem::path scenario_file;
  std::string label;  ///< the scenario as the measurements name it
  comm::Operation operation = comm::Operation::allreduce;
  double size_bytes = 0.0;
  /// The measured seconds of one call; unset when only the bus bandwidth is given (the scenario's rank
  /// count turns it into a time).
  std::optional<double> time_s;
  std::optional<double> busbw_gb_per_s;
  int line = 0;
  int value_column = 1;                 ///< where the row's time or bus bandwidth starts (1-based), for errors
  std::optional<double> bound_percent;  ///< the largest error of the predicted bus bandwidth accepted
};

/// The cells of one CSV line (quoted fields unquoted), each without surrounding blanks.
[[nodiscard]] std::vector<std::string> csv_cells(const std::string& line);

/// A measurement CSV's header line.
struct CsvHeader {
  std::vector<std::string> cells;  ///< the column names, each without surrounding blanks
  std::vector<int> columns;        ///< the 1-based column where each name starts, for errors
  int line = 0;
};

/// The header of the measurement CSV `path` read from `in`, past the lines starting with # before it (they
/// say where the measurements come from). Throws core::InputError at the second of two columns of one name:
/// a reader would take one and silently drop the other. Unnamed columns (a spreadsheet's trailing commas)
/// are read by nothing and may repeat.
[[nodiscard]] CsvHeader csv_header(std::istream& in, const std::filesystem::path& path);

/// Whether `seconds` is a measured time dtsim can set against a prediction: a duration the scenario language
/// accepts besides 0 (core::magnitudes_of(Duration), 1e-12 s to 1e9 s). A time past them (1e300 s) would print
/// an error some 300 digits long and fit an efficiency to the end of its range.
[[nodiscard]] bool is_measurable_duration(double seconds);
/// "from 1e-12s to 1e9s", the range is_measurable_duration accepts, for messages.
[[nodiscard]] std::string measurable_duration_text();

/// The error of a row with more cells than its table's header names (`cells` against `named`); kExtraCellsHint
/// is its hint.
[[nodiscard]] std::string extra_cells_message(std::size_t cells, std::size_t named);
inline constexpr const char* kExtraCellsHint =
    "give each row one cell per column of the header, and quote a cell that holds a comma (\"a,b\")";

/// Whether `path` holds nccl-tests output (its table's header line) rather than a CSV.
[[nodiscard]] bool is_nccl_tests_output(const std::filesystem::path& path);

/// The rows of nccl-tests output, out of place, for the cluster of `scenario_file`. The collective is the
/// one the output names ("# Collective test starting: all_reduce_perf", nccl-tests 2.13 on), else the one
/// whose bus-bandwidth factor matches the rows for the ranks its device lines count. `ranks`, when given,
/// receives that count. Throws core::InputError naming the line for what cannot be read.
[[nodiscard]] std::vector<CollectiveMeasurement> read_nccl_tests(const std::filesystem::path& path,
                                                                 const std::filesystem::path& scenario_file,
                                                                 int* ranks = nullptr);

/// A CSV with the columns scenario (relative to the CSV's folder), operation, size_B, and busbw_GBps or
/// time_us, and optionally bound_percent; lines starting with # are comments.
[[nodiscard]] std::vector<CollectiveMeasurement> read_collective_csv(const std::filesystem::path& path);

/// Whether a table reader has named core::kNamedProblems problems in `problems`: then it records, at `line` of
/// `path`, that the rows from there on are not checked, and reads no further.
bool named_enough(core::DiagnosticSink& problems, const std::filesystem::path& path, int line);

}  // namespace dtsim::app
