#include "models/dense_classifier.hpp"
#include "models/logistic_regression.hpp"
#include "models/model_plugin.hpp"

#include <fmt/format.h>

namespace dtsim::models {

/// The classifiers without a hidden layer: binary logistic regression and its multi-class form.
void register_linear_models(ModelRegistry& registry) {
  registry.add("logistic_regression", "binary logistic regression (cross-entropy loss)",
               {.parameters = {},
                .trains_on = SampleKind::Classified,
                .make = [](const core::View&, const ModelContext& c) {
                  return std::make_unique<LogisticRegression>(c.data.features);
                },
                .profile = {},
                .check = [](const core::View& m, const ModelContext& c, core::DiagnosticSink& sink) {
                  if (c.data.classes == 2) return;
                  sink.error(m.where("kind"), "model.kind",
                             fmt::format("'logistic_regression' has two classes, and the '{}' data have {}",
                                         c.data_kind, c.data.classes),
                             "use model.kind: softmax_regression or mlp");
                },
                .example = "{kind: logistic_regression}",
                .example_data = "{kind: breast_cancer}"});
  registry.add("softmax_regression", "multi-class logistic regression (softmax cross-entropy)",
               {.parameters = {},
                .trains_on = SampleKind::Classified,
                .make = [](const core::View&, const ModelContext& c) {
                  return std::make_unique<DenseClassifier>(c.data.features, std::vector<std::size_t>{},
                                                           Activation::Relu, c.data.classes, c.seed);
                },
                .profile = {},
                .check = {},
                .runs_on_cuda = true,
                .example = "{kind: softmax_regression}"});
}

}  // namespace dtsim::models
