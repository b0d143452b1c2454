#include "datasets/data_plugin.hpp"
#include "models/synthetic_classification.hpp"

namespace dtsim::datasets {

void register_synthetic_classification(DataRegistry& registry) {
  registry.add(
      "synthetic_classification", "seeded linearly separable classes with label noise",
      {.parameters = {samples_parameter(), features_parameter(),
                      core::number("label_noise", 0.0, 1e6, "standard deviation of noise added to the true logit")
                          .fallback("0")},
       .load = [](const core::View& d, const DataContext&) { return generated_vectors(d, 2); },
       .make = [](const core::View& d, const DataContext& c) {
         return models::make_synthetic_classification({.samples = static_cast<std::size_t>(*d.integer("samples")),
                                                       .features = static_cast<std::size_t>(*d.integer("features")),
                                                       .validation_fraction = c.validation_fraction,
                                                       .label_noise = *d.number("label_noise")},
                                                      c.seed);
       },
       .check = {},
       .example = "{kind: synthetic_classification, samples: 1000, features: 16, label_noise: 0.1}",
       .example_model = "{kind: logistic_regression}",
       .generated = true});
}

}  // namespace dtsim::datasets
