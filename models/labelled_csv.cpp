#include "models/labelled_csv.hpp"

#include "sim/core/diagnostic.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/rng.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <optional>
#include <set>

namespace dtsim::models {
namespace {

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    out.push_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

std::string trimmed(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.remove_suffix(1);
  return std::string(text);
}

std::optional<double> number(std::string_view text) {
  const std::string cell = trimmed(text);
  double value = 0.0;
  const auto [end, error] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (error != std::errc() || end != cell.data() + cell.size() || cell.empty()) return std::nullopt;
  return value;
}

/// Problems are collected, up to a bound, so that one run names every bad row of a table a user can fix.
constexpr std::size_t kReportedProblems = 20;

class TableProblems {
 public:
  explicit TableProblems(std::filesystem::path path) : path_(std::move(path)) {}

  void add(int line, int column, std::string message, std::string hint = "") {
    if (sink_.size() < kReportedProblems) {
      sink_.error(core::SourcePosition(path_.string(), line, column), "", std::move(message), std::move(hint));
    } else {
      ++unreported_;
    }
  }
  /// The cell's text, quoted and cut short, the first time; "a cell" after: an error quotes at most one
  /// bounded excerpt of a file, which may be one the scenario's author had no business showing.
  std::string excerpt(std::string_view cell) {
    if (quoted_) return "this cell";
    quoted_ = true;
    constexpr std::size_t kLongest = 24;
    const std::string shown = core::printable(cell.substr(0, kLongest));
    return fmt::format("'{}{}'", shown, cell.size() > kLongest ? "..." : "");
  }
  /// No row has been read as numbers: the file is not a table at all, and is named, not quoted.
  [[noreturn]] void not_a_table() {
    throw core::InputError(core::Diagnostic{core::SourcePosition(path_.string()), "",
                                            "this file is not a table of numbers: none of its rows starts with one",
                                            "data.path names a CSV file of numbers, relative to the scenario's "
                                            "folder"});
  }
  [[noreturn]] void fail(int line, std::string message, std::string hint = "") {
    add(line, line > 0 ? 1 : 0, std::move(message), std::move(hint));
    throw_all();
  }
  void throw_if_any() {
    if (!sink_.empty()) throw_all();
  }

 private:
  [[noreturn]] void throw_all() {
    if (unreported_ > 0) {
      sink_.error(core::SourcePosition(path_.string()), "",
                  fmt::format("{} more problems like these are not listed", unreported_));
    }
    throw core::InputError(sink_.diagnostics());
  }

  std::filesystem::path path_;
  core::DiagnosticSink sink_;
  std::size_t unreported_ = 0;
  bool quoted_ = false;
};

/// The 1-based column where field `index` of `line` starts.
int column_of(const std::vector<std::string_view>& fields, std::size_t index, std::string_view line) {
  return static_cast<int>(fields[index].data() - line.data()) + 1;
}

constexpr const char* kLabelledRowHint = "a row is the features, then the class index: 5.1,3.5,1.4,0.2,0";

/// A row's cells read as numbers, up to the first that is not one.
struct LabelledRowNumbers {
  std::vector<double> values;
  std::optional<std::size_t> not_a_number;
};

LabelledRowNumbers labelled_row_numbers(const std::vector<std::string_view>& fields) {
  LabelledRowNumbers row;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const std::optional<double> value = number(fields[i]);
    if (!value) {
      row.not_a_number = i;
      break;
    }
    row.values.push_back(*value);
  }
  return row;
}

/// What the file's rows hold: the samples read, and what its header and its bad rows tell about it.
struct LabelledRows {
  std::vector<std::vector<double>> rows;
  std::optional<std::size_t> declared_samples;
  std::size_t width = 0;
  std::size_t bad_rows = 0;
  std::size_t rows_of_text = 0;  // rows whose first cell is not a number
};

/// Reads the header row `samples,features,<class names...>` into `table` and `class_names`; false where the row
/// is not one. Only a first row may be the header: after that, a row with text is a bad row.
bool read_labelled_header(const LabelledRowNumbers& row, const std::vector<std::string_view>& fields,
                          LabelledRows& table, std::vector<std::string>& class_names) {
  if (!(row.not_a_number && table.rows.empty() && table.bad_rows == 0 && !table.declared_samples &&
        fields.size() >= 2 && number(fields[0]) && number(fields[1]))) {
    return false;
  }
  table.declared_samples = static_cast<std::size_t>(*number(fields[0]));
  table.width = static_cast<std::size_t>(*number(fields[1])) + 1;
  for (std::size_t i = 2; i < fields.size(); ++i) class_names.emplace_back(fields[i]);
  return true;
}

/// Whether a row is a sample: finite numbers, as many as the table's width, ending with a class index. Where
/// it is not, adds the problem and returns false. The first good row sets the width of a table without header.
bool labelled_row_fits(const LabelledRowNumbers& row, const std::vector<std::string_view>& fields,
                       std::string_view line, int number_of_line, const std::vector<std::string>& class_names,
                       LabelledRows& table, TableProblems& problems) {
  const std::vector<double>& values = row.values;
  if (row.not_a_number) {
    if (*row.not_a_number == 0) ++table.rows_of_text;
    problems.add(number_of_line, column_of(fields, *row.not_a_number, line),
                 fmt::format("{} is not a number", problems.excerpt(trimmed(fields[*row.not_a_number]))),
                 kLabelledRowHint);
    return false;
  }
  if (const auto infinite = std::find_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); });
      infinite != values.end()) {
    const auto index = static_cast<std::size_t>(infinite - values.begin());
    problems.add(number_of_line, column_of(fields, index, line),
                 fmt::format("{} is not a finite number", problems.excerpt(trimmed(fields[index]))),
                 "fill in the missing value, or leave the row out");
    return false;
  }
  if (values.size() < 2) {
    problems.add(number_of_line, 1, "a row of one value; a row needs at least one feature and a class",
                 kLabelledRowHint);
    return false;
  }
  if (table.width == 0) table.width = values.size();
  if (values.size() != table.width) {
    problems.add(number_of_line, 1,
                 fmt::format("a row of {} values where the table has {}", values.size(), table.width),
                 fmt::format("every row has {} features and a class", table.width - 1));
    return false;
  }
  const double label = values.back();
  if (label < 0 || label != std::floor(label) ||
      (!class_names.empty() && label >= static_cast<double>(class_names.size()))) {
    problems.add(number_of_line, column_of(fields, fields.size() - 1, line),
                 fmt::format("label {} is not a class index", label),
                 class_names.empty() ? "the last value of a row is its class: 0, 1, 2, ..."
                                     : fmt::format("classes are 0..{}", class_names.size() - 1));
    return false;
  }
  return true;
}

/// Every line of `text`: the header into `class_names`, the samples kept, the bad rows counted and reported.
LabelledRows read_labelled_rows(const std::string& text, std::vector<std::string>& class_names,
                                TableProblems& problems) {
  LabelledRows table;
  int number_of_line = 0;
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t newline = text.find('\n', begin);
    if (newline == std::string::npos) newline = text.size();
    const std::string_view line(text.data() + begin, newline - begin);
    begin = newline + 1;
    ++number_of_line;
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string_view> fields = split_fields(line);
    LabelledRowNumbers row = labelled_row_numbers(fields);
    if (read_labelled_header(row, fields, table, class_names)) continue;
    if (labelled_row_fits(row, fields, line, number_of_line, class_names, table, problems)) {
      table.rows.push_back(std::move(row.values));
    } else {
      ++table.bad_rows;
    }
  }
  return table;
}

/// The samples as features and labels; where the file names no classes, they are 0..the largest label.
void fill_labelled_table(const LabelledRows& table, LabelledTable& out) {
  const std::vector<std::vector<double>>& rows = table.rows;
  const std::size_t width = table.width;
  out.features.resize(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(width - 1));
  out.labels.resize(static_cast<Eigen::Index>(rows.size()));
  double largest = 0.0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t c = 0; c + 1 < width; ++c) {
      out.features(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = static_cast<float>(rows[r][c]);
    }
    out.labels[static_cast<Eigen::Index>(r)] = static_cast<float>(rows[r].back());
    largest = std::max(largest, rows[r].back());
  }
  if (out.class_names.empty()) {
    for (int k = 0; k <= static_cast<int>(largest); ++k) out.class_names.push_back(std::to_string(k));
  }
}

}  // namespace

LabelledTable read_labelled_csv(const std::filesystem::path& path) {
  TableProblems problems(path);
  std::string reason;
  const std::optional<std::string> text = core::read_input_file(path, core::kDataFileLimit, reason);
  if (!text) problems.fail(0, "cannot read this data file: " + reason, "data.path names a CSV file, relative to the scenario's folder");
  LabelledTable out;
  const LabelledRows table = read_labelled_rows(*text, out.class_names, problems);
  if (table.rows.empty() && table.bad_rows > 0 && table.rows_of_text == table.bad_rows) problems.not_a_table();
  problems.throw_if_any();
  if (table.rows.empty()) problems.fail(0, "the file holds no rows of numbers", kLabelledRowHint);
  if (table.declared_samples && *table.declared_samples != table.rows.size()) {
    problems.fail(1, fmt::format("the header declares {} samples and the file has {}", *table.declared_samples,
                                 table.rows.size()));
  }
  fill_labelled_table(table, out);
  const std::set<float> present(out.labels.begin(), out.labels.end());
  if (present.size() < 2) {
    problems.fail(0, fmt::format("every row has class {}: a classifier needs samples of at least two classes", *present.begin()),
                  "the last value of each row is its class");
  }
  return out;
}

SplitDataset split_and_standardize(const LabelledTable& table, double validation_fraction, std::uint64_t seed,
                                   const std::string& name) {
  const auto samples = static_cast<std::size_t>(table.features.rows());
  std::vector<std::size_t> order(samples);
  std::iota(order.begin(), order.end(), 0);
  core::RandomEngine engine = core::random_stream(seed, "data/" + name + "/split");
  core::shuffle(std::span<std::size_t>(order), engine);
  const auto validation = held_out(samples, validation_fraction);
  const std::size_t train = samples - validation;
  const std::vector<Eigen::Index> train_rows(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(train));
  const std::vector<Eigen::Index> validation_rows(order.begin() + static_cast<std::ptrdiff_t>(train), order.end());
  SplitDataset out;
  out.train.features = table.features(train_rows, Eigen::all);
  out.train.labels = table.labels(train_rows);
  out.validation.features = table.features(validation_rows, Eigen::all);
  out.validation.labels = table.labels(validation_rows);
  const Eigen::RowVectorXd mean = out.train.features.cast<double>().colwise().mean();
  const Eigen::RowVectorXd deviation =
      ((out.train.features.cast<double>().rowwise() - mean).array().square().colwise().mean()).sqrt();
  for (Dataset* part : {&out.train, &out.validation}) {
    for (Eigen::Index c = 0; c < part->features.cols(); ++c) {
      const double scale = deviation[c] > 0.0 ? 1.0 / deviation[c] : 1.0;
      part->features.col(c) = ((part->features.col(c).cast<double>().array() - mean[c]) * scale).cast<float>();
    }
    part->classes = table.class_names.size();
  }
  return out;
}

}  // namespace dtsim::models
