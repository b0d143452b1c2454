#include "sim/app/scenario_data.hpp"

#include "models/gaussian_blobs.hpp"
#include "models/labelled_csv.hpp"
#include "models/low_rank_ratings.hpp"
#include "models/partitioning.hpp"
#include "models/synthetic_classification.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace dtsim::app {
namespace {

bool is_real(const std::string& kind) {
  return kind == "digits" || kind == "iris" || kind == "wine" || kind == "breast_cancer" || kind == "csv";
}

std::filesystem::path table_path(const scenario::Scenario& s) {
  return s.data.kind.value == "csv" ? s.data.path : data_folder() / (s.data.kind.value + ".csv");
}

/// The table, with errors in it pointing back at the scenario key that named it.
models::LabelledTable read_table(const scenario::Scenario& s) {
  try {
    return models::read_labelled_csv(table_path(s));
  } catch (const core::InputError& error) {
    std::vector<core::Diagnostic> diagnostics = error.diagnostics();
    const core::SourcePosition& named_at = s.data.kind.value == "csv" ? s.data.path_at : s.data.kind.where;
    for (core::Diagnostic& diagnostic : diagnostics) diagnostic.where.included_from.push_back(named_at);
    throw core::InputError(std::move(diagnostics));
  }
}

}  // namespace

std::filesystem::path data_folder() {
  if (const char* set = std::getenv("DTSIM_DATA"); set != nullptr && *set != '\0') return set;
  return DTSIM_DATA_DIR;
}

DataShape data_shape(const scenario::Scenario& s) {
  const std::string& kind = s.data.kind.value;
  if (kind == "low_rank_ratings") return {static_cast<std::size_t>(s.data.samples), 2, 0, true};
  if (is_real(kind)) {
    const models::LabelledTable table = read_table(s);
    return {static_cast<std::size_t>(table.features.rows()), static_cast<std::size_t>(table.features.cols()),
            table.class_names.size(), false};
  }
  const std::size_t classes = kind == "gaussian_blobs" ? static_cast<std::size_t>(s.data.classes) : 2;
  return {static_cast<std::size_t>(s.data.samples), static_cast<std::size_t>(s.data.features), classes, false};
}

models::SplitDataset make_data(const scenario::Scenario& s) {
  const std::string& kind = s.data.kind.value;
  if (kind == "low_rank_ratings") {
    return models::make_low_rank_ratings({.samples = static_cast<std::size_t>(s.data.samples),
                                          .users = static_cast<std::size_t>(s.data.users),
                                          .items = static_cast<std::size_t>(s.data.items),
                                          .rank = static_cast<std::size_t>(s.data.rank),
                                          .validation_fraction = s.data.validation_fraction,
                                          .noise = s.data.noise},
                                         s.seed);
  }
  if (is_real(kind)) {
    return models::split_and_standardize(read_table(s), s.data.validation_fraction, s.seed, kind);
  }
  if (kind == "gaussian_blobs") {
    return models::make_gaussian_blobs({.samples = static_cast<std::size_t>(s.data.samples),
                                        .features = static_cast<std::size_t>(s.data.features),
                                        .classes = static_cast<std::size_t>(s.data.classes),
                                        .validation_fraction = s.data.validation_fraction},
                                       s.seed);
  }
  return models::make_synthetic_classification({static_cast<std::size_t>(s.data.samples),
                                                static_cast<std::size_t>(s.data.features), s.data.validation_fraction,
                                                s.data.label_noise},
                                               s.seed);
}

void partition(const scenario::Scenario& s, const models::BatchSchedule& schedule, models::SplitDataset& data) {
  if (s.data.partitioning == "iid") return;
  const models::Partitioning kind =
      s.data.partitioning == "by_label" ? models::Partitioning::ByLabel : models::Partitioning::Dirichlet;
  models::reorder(data.train, models::partition_order(data.train, schedule, kind, s.data.alpha, s.seed));
}

models::ModelShape model_shape(const scenario::Scenario& s, const DataShape& data) {
  std::vector<std::size_t> hidden;
  for (const int width : s.model.layers) hidden.push_back(static_cast<std::size_t>(width));
  return {.features = data.features,
          .classes = data.classes,
          .hidden = std::move(hidden),
          .tanh = s.model.activation == "tanh",
          .users = static_cast<std::size_t>(s.data.users),
          .items = static_cast<std::size_t>(s.data.items),
          .dimensions = static_cast<std::size_t>(s.model.dimensions),
          .seed = s.seed};
}

bool check_model_fits_data(const scenario::Scenario& s, const DataShape& data, core::DiagnosticSink& sink) {
  const std::string& model = s.model.kind.value;
  const std::string& kind = s.data.kind.value;
  if (model == "matrix_factorization" && !data.ratings) {
    sink.error(s.model.kind.where, "model.kind",
               fmt::format("'matrix_factorization' trains on ratings, and data.kind is '{}'", kind),
               "use data.kind: low_rank_ratings");
    return false;
  }
  if (model != "matrix_factorization" && data.ratings) {
    sink.error(s.model.kind.where, "model.kind", fmt::format("'{}' classifies, and '{}' data are ratings", model, kind),
               "use model.kind: matrix_factorization");
    return false;
  }
  if (data.ratings && s.data.partitioning != "iid") {
    sink.error(s.data.partitioning_at, "data.partitioning.kind",
               fmt::format("'{}' splits samples by label, and ratings have none", s.data.partitioning),
               "use data.partitioning.kind: iid");
    return false;
  }
  if (model == "logistic_regression" && data.classes != 2) {
    sink.error(s.model.kind.where, "model.kind",
               fmt::format("'logistic_regression' has two classes, and the '{}' data have {}", kind, data.classes),
               "use model.kind: softmax_regression or mlp");
    return false;
  }
  return true;
}

}  // namespace dtsim::app
