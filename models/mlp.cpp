#include "models/dense_classifier.hpp"
#include "models/model_plugin.hpp"

namespace dtsim::models {

void register_mlp(ModelRegistry& registry) {
  registry.add(
      "mlp", "multi-layer perceptron: dense hidden layers (relu or tanh), softmax cross-entropy",
      {.parameters = {core::list_of("layers", "hidden layer widths", core::integer("[]", 1, 1'000'000, "width")).require(),
                      activation_parameter()},
       .trains_on = SampleKind::Classified,
       .make = [](const core::View& m, const ModelContext& c) {
         std::vector<std::size_t> hidden;
         for (const core::ConfigNode& width : m.at("layers").node()->items) {
           hidden.push_back(static_cast<std::size_t>(core::parse_integer(width.scalar).value_or(1)));
         }
         const Activation activation = m.text("activation") == "tanh" ? Activation::Tanh : Activation::Relu;
         return std::make_unique<DenseClassifier>(c.data.features, std::move(hidden), activation, c.data.classes,
                                                  c.seed);
       },
       .profile = {},
       .check = {},
       .runs_on_cuda = true,
       .example = "{kind: mlp, layers: [32, 16], activation: tanh}",
       .example_data = "{kind: digits}"});
}

}  // namespace dtsim::models
