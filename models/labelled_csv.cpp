#include "models/labelled_csv.hpp"

#include "sim/core/diagnostic.hpp"
#include "sim/core/rng.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <numeric>
#include <optional>

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

std::optional<double> number(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.remove_suffix(1);
  double value = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

[[noreturn]] void fail(const std::filesystem::path& path, int line, const std::string& message, const std::string& hint = "") {
  throw core::InputError(core::Diagnostic{core::SourcePosition(path.string(), line, 1), "", message, hint});
}

}  // namespace

LabelledTable read_labelled_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) fail(path, 0, "cannot read this file", "check the path (relative paths start at the scenario's folder)");
  std::vector<std::vector<double>> rows;
  std::optional<std::size_t> declared_samples;
  LabelledTable out;
  std::string line;
  int number_of_line = 0;
  std::size_t width = 0;
  while (std::getline(in, line)) {
    ++number_of_line;
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string_view> fields = split_fields(line);
    std::vector<double> values;
    bool numeric = true;
    for (const std::string_view field : fields) {
      const std::optional<double> value = number(field);
      if (!value) {
        numeric = false;
        break;
      }
      values.push_back(*value);
    }
    if (!numeric && rows.empty() && !declared_samples && fields.size() >= 2 && number(fields[0]) && number(fields[1])) {
      declared_samples = static_cast<std::size_t>(*number(fields[0]));
      width = static_cast<std::size_t>(*number(fields[1])) + 1;
      for (std::size_t i = 2; i < fields.size(); ++i) out.class_names.emplace_back(fields[i]);
      continue;
    }
    if (!numeric) fail(path, number_of_line, "a row that is not all numbers", "rows are the features, then the class index");
    if (width == 0) width = values.size();
    if (values.size() != width || width < 2) {
      fail(path, number_of_line, fmt::format("a row of {} values where the table has {}", values.size(), width));
    }
    const double label = values.back();
    if (label < 0 || label != std::floor(label) ||
        (!out.class_names.empty() && label >= static_cast<double>(out.class_names.size()))) {
      fail(path, number_of_line, fmt::format("label {} is not a class index", label),
           out.class_names.empty() ? "" : fmt::format("classes are 0..{}", out.class_names.size() - 1));
    }
    rows.push_back(std::move(values));
  }
  if (rows.empty()) fail(path, number_of_line, "no samples");
  if (declared_samples && *declared_samples != rows.size()) {
    fail(path, 1, fmt::format("the header declares {} samples and the file has {}", *declared_samples, rows.size()));
  }
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
