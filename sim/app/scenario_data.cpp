#include "sim/app/scenario_data.hpp"

#include "models/cooccurrence.hpp"
#include "models/gaussian_blobs.hpp"
#include "models/labelled_csv.hpp"
#include "models/low_rank_ratings.hpp"
#include "models/partitioning.hpp"
#include "models/sparse_clicks.hpp"
#include "models/synthetic_classification.hpp"
#include "models/text_corpus.hpp"
#include "models/zipf_text.hpp"

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

bool is_text(const std::string& kind) { return kind == "kjv" || kind == "text" || kind == "zipf_text"; }

models::TokenizedText read_text(const scenario::Scenario& s) {
  const auto vocabulary = static_cast<std::size_t>(s.data.vocabulary);
  if (s.data.kind.value == "zipf_text") {
    return models::make_zipf_text({.words = static_cast<std::size_t>(s.data.samples), .vocabulary = vocabulary}, s.seed);
  }
  const std::filesystem::path file = s.data.kind.value == "text" ? s.data.path : data_folder() / "kjv.txt.gz";
  try {
    return models::read_text_corpus(file, vocabulary);
  } catch (const core::InputError& error) {
    std::vector<core::Diagnostic> diagnostics = error.diagnostics();
    const core::SourcePosition& named_at = s.data.kind.value == "text" ? s.data.path_at : s.data.kind.where;
    for (core::Diagnostic& diagnostic : diagnostics) diagnostic.where.included_from.push_back(named_at);
    throw core::InputError(std::move(diagnostics));
  }
}

models::SplitDataset cooccurrence(const scenario::Scenario& s, std::size_t& words) {
  const models::TokenizedText text = read_text(s);
  words = text.words.size();
  return models::make_cooccurrence(text, static_cast<std::size_t>(s.data.window), s.data.validation_fraction, s.seed);
}

}  // namespace

std::filesystem::path data_folder() {
  if (const char* set = std::getenv("DTSIM_DATA"); set != nullptr && *set != '\0') return set;
  return DTSIM_DATA_DIR;
}

LoadedData load_data(const scenario::Scenario& s) {
  const std::string& kind = s.data.kind.value;
  if (kind == "low_rank_ratings") {
    return {.shape = {.samples = static_cast<std::size_t>(s.data.samples), .features = 2, .kind = SampleKind::Rating},
            .data = std::nullopt};
  }
  if (is_text(kind)) {
    std::size_t words = 0;
    models::SplitDataset pairs = cooccurrence(s, words);
    const DataShape shape{.samples = pairs.train.size() + pairs.validation.size(),
                          .features = 2,
                          .kind = SampleKind::Cooccurrence,
                          .words = words};
    return {.shape = shape, .data = std::move(pairs)};
  }
  if (is_real(kind)) {
    models::LabelledTable table = read_table(s);
    const DataShape shape{.samples = static_cast<std::size_t>(table.features.rows()),
                          .features = static_cast<std::size_t>(table.features.cols()),
                          .classes = table.class_names.size()};
    // A split leaving either part empty is reported by the checks, at the scenario's keys; the run never
    // gets there.
    const std::size_t validation = validation_count(s, shape);
    if (validation == 0 || validation >= shape.samples) return {.shape = shape, .data = std::nullopt};
    return {.shape = shape,
            .data = models::split_and_standardize(table, s.data.validation_fraction, s.seed, kind)};
  }
  const std::size_t classes = kind == "gaussian_blobs" ? static_cast<std::size_t>(s.data.classes) : 2;
  return {.shape = {.samples = static_cast<std::size_t>(s.data.samples),
                    .features = static_cast<std::size_t>(s.data.features),
                    .classes = classes},
          .data = std::nullopt};
}

std::size_t validation_count(const scenario::Scenario& s, const DataShape& data) {
  return static_cast<std::size_t>(std::llround(static_cast<double>(data.samples) * s.data.validation_fraction));
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
  if (is_text(kind)) {
    std::size_t words = 0;
    return cooccurrence(s, words);
  }
  if (is_real(kind)) {
    return models::split_and_standardize(read_table(s), s.data.validation_fraction, s.seed, kind);
  }
  if (kind == "sparse_clicks") {
    return models::make_sparse_clicks({.samples = static_cast<std::size_t>(s.data.samples),
                                       .features = static_cast<std::size_t>(s.data.features),
                                       .active = static_cast<std::size_t>(s.data.active),
                                       .validation_fraction = s.data.validation_fraction},
                                      s.seed);
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
          .words = data.words,
          .x_max = s.model.x_max,
          .alpha = s.model.alpha,
          .seed = s.seed};
}

bool check_model_fits_data(const scenario::Scenario& s, const DataShape& data, core::DiagnosticSink& sink) {
  const std::string& model = s.model.kind.value;
  const std::string& kind = s.data.kind.value;
  // Each sample kind has the models that read it.
  const auto trains_on = [](const std::string& m) {
    if (m == "matrix_factorization") return SampleKind::Rating;
    if (m == "glove") return SampleKind::Cooccurrence;
    return SampleKind::Classified;
  };
  if (trains_on(model) != data.kind) {
    const char* what = data.kind == SampleKind::Rating         ? "are ratings"
                       : data.kind == SampleKind::Cooccurrence ? "are word co-occurrences"
                                                               : "are labelled feature vectors";
    const char* hint = data.kind == SampleKind::Rating         ? "use model.kind: matrix_factorization"
                       : data.kind == SampleKind::Cooccurrence ? "use model.kind: glove"
                                                               : "use model.kind: softmax_regression, mlp or logistic_regression";
    sink.error(s.model.kind.where, "model.kind", fmt::format("'{}' cannot train on '{}' data, which {}", model, kind, what),
               hint);
    return false;
  }
  if (data.kind != SampleKind::Classified && s.data.partitioning != "iid") {
    sink.error(s.data.partitioning_at, "data.partitioning.kind",
               fmt::format("'{}' splits samples by label, and '{}' samples have none", s.data.partitioning, kind),
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
