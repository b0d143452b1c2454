#include "datasets/data_plugin.hpp"
#include "models/gaussian_blobs.hpp"

namespace dtsim::datasets {

void register_gaussian_blobs(DataRegistry& registry) {
  registry.add(
      "gaussian_blobs", "seeded Gaussian clusters, one per class",
      {.parameters = {samples_parameter(), features_parameter(),
                      core::integer("classes", 2, 1000, "number of classes").fallback("3")},
       .load = [](const core::View& d, const DataContext&) {
         return generated_vectors(d, static_cast<std::size_t>(*d.integer("classes")));
       },
       .make = [](const core::View& d, const DataContext& c) {
         return models::make_gaussian_blobs({.samples = static_cast<std::size_t>(*d.integer("samples")),
                                             .features = static_cast<std::size_t>(*d.integer("features")),
                                             .classes = static_cast<std::size_t>(*d.integer("classes")),
                                             .validation_fraction = c.validation_fraction},
                                            c.seed);
       },
       .check = {},
       .example = "{kind: gaussian_blobs, samples: 600, features: 4, classes: 3}",
       .generated = true});
}

}  // namespace dtsim::datasets
