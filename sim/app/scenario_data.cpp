#include "sim/app/scenario_data.hpp"

#include "models/partitioning.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace dtsim::app {
namespace {

datasets::DataContext data_context(const scenario::Scenario& s) {
  return {.seed = s.seed, .validation_fraction = s.data.validation_fraction, .data_folder = data_folder()};
}

core::View data_section(const scenario::Scenario& s) { return core::View(&s.data.section, "data"); }

}  // namespace

std::filesystem::path data_folder() {
  if (const char* set = std::getenv("DTSIM_DATA"); set != nullptr && *set != '\0') return set;
  return DTSIM_DATA_DIR;
}

LoadedData load_data(const scenario::Scenario& s, const datasets::DataRegistry& data_sets) {
  return data_sets.find(s.data.kind.value).factory.load(data_section(s), data_context(s));
}

std::size_t validation_count(const scenario::Scenario& s, const DataShape& data) {
  return static_cast<std::size_t>(std::llround(static_cast<double>(data.samples) * s.data.validation_fraction));
}

models::SplitDataset make_data(const scenario::Scenario& s, const datasets::DataRegistry& data_sets) {
  return datasets::make_data(data_sets.find(s.data.kind.value).factory, data_section(s), data_context(s));
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
          .users = data.users,
          .items = data.items,
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
