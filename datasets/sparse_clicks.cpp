#include "datasets/data_plugin.hpp"
#include "models/sparse_clicks.hpp"

#include <fmt/format.h>

namespace dtsim::datasets {

void register_sparse_clicks(DataRegistry& registry) {
  registry.add(
      "sparse_clicks", "seeded click-through data: binary features, `active` of them per sample",
      {.parameters = {samples_parameter(), features_parameter(),
                      core::integer("active", 1, 1'000'000, "features set to 1 in each sample (at most features)")
                          .fallback("8")},
       .load = [](const core::View& d, const DataContext&) { return generated_vectors(d, 2); },
       .make = [](const core::View& d, const DataContext& c) {
         return models::make_sparse_clicks({.samples = static_cast<std::size_t>(*d.integer("samples")),
                                            .features = static_cast<std::size_t>(*d.integer("features")),
                                            .active = static_cast<std::size_t>(*d.integer("active")),
                                            .validation_fraction = c.validation_fraction},
                                           c.seed);
       },
       .check = [](const core::View& d, core::DiagnosticSink& sink) {
         const std::int64_t active = d.integer("active").value_or(0);
         const std::int64_t features = d.integer("features").value_or(0);
         if (active > features && features > 0) {
           sink.error(d.where("active"), "data.active",
                      fmt::format("{} active features per sample out of {} features", active, features),
                      fmt::format("use at most {}", features));
         }
       },
       .example = "{kind: sparse_clicks, samples: 2000, features: 500, active: 8}",
       .example_model = "{kind: logistic_regression}",
       .generated = true});
}

}  // namespace dtsim::datasets
