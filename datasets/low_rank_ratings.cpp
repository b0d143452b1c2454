#include "datasets/data_plugin.hpp"
#include "models/low_rank_ratings.hpp"

namespace dtsim::datasets {

void register_low_rank_ratings(DataRegistry& registry) {
  registry.add(
      "low_rank_ratings", "seeded low-rank ratings matrix",
      {.parameters = {samples_parameter(),
                      core::integer("users", 1, 1 << 24, "rows of the ratings matrix").require(),
                      core::integer("items", 1, 1 << 24, "columns of the ratings matrix").require(),
                      core::integer("rank", 1, 1000, "rank of the hidden ratings matrix").fallback("4"),
                      core::number("noise", 0.0, 1e6, "standard deviation of the noise added to each rating")
                          .fallback("0.1")},
       .load = [](const core::View& d, const DataContext&) {
         return LoadedData{.shape = {.samples = static_cast<std::size_t>(*d.integer("samples")),
                                     .features = 2,
                                     .kind = SampleKind::Rating,
                                     .users = static_cast<std::size_t>(*d.integer("users")),
                                     .items = static_cast<std::size_t>(*d.integer("items"))},
                           .data = std::nullopt};
       },
       .make = [](const core::View& d, const DataContext& c) {
         return models::make_low_rank_ratings({.samples = static_cast<std::size_t>(*d.integer("samples")),
                                               .users = static_cast<std::size_t>(*d.integer("users")),
                                               .items = static_cast<std::size_t>(*d.integer("items")),
                                               .rank = static_cast<std::size_t>(*d.integer("rank")),
                                               .validation_fraction = c.validation_fraction,
                                               .noise = *d.number("noise")},
                                              c.seed);
       },
       .check = {},
       .example = "{kind: low_rank_ratings, samples: 5000, users: 100, items: 80, rank: 4}",
       .example_model = "{kind: matrix_factorization, dimensions: 4}",
       .generated = true});
}

}  // namespace dtsim::datasets
