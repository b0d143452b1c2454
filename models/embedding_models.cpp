#include "models/glove.hpp"
#include "models/matrix_factorization.hpp"
#include "models/model_plugin.hpp"

#include <limits>

namespace dtsim::models {

/// The models made of sparse embedding rows: GloVe on co-occurrences, matrix factorization on ratings.
void register_embedding_models(ModelRegistry& registry) {
  registry.add(
      "glove", "GloVe word embeddings: word and context vectors fit to log co-occurrence counts (sparse rows)",
      {.parameters = {dimensions_parameter(),
                      core::number("x_max", 0.0, std::numeric_limits<double>::infinity(),
                                   "co-occurrence count from which a pair gets full weight")
                          .exclusive_min()
                          .fallback("100"),
                      core::number("alpha", 0.0, 10.0, "exponent of the weight (x / x_max)^alpha below x_max")
                          .exclusive_min()
                          .fallback("0.75")},
       .trains_on = SampleKind::Cooccurrence,
       .make = [](const core::View& m, const ModelContext& c) {
         return std::make_unique<Glove>(c.data.words, static_cast<std::size_t>(*m.integer("dimensions")),
                                        *m.number("x_max"), *m.number("alpha"), c.seed);
       },
       .profile = {},
       .check = {},
       .example = "{kind: glove, dimensions: 16, x_max: 50, alpha: 0.75}",
       .example_data = "{kind: zipf_text, samples: 20000, vocabulary: 300}"});
  registry.add("matrix_factorization",
               "biased matrix factorization of a ratings matrix (sparse rows per user and item)",
               {.parameters = {dimensions_parameter()},
                .trains_on = SampleKind::Rating,
                .make = [](const core::View& m, const ModelContext& c) {
                  return std::make_unique<MatrixFactorization>(c.data.users, c.data.items,
                                                               static_cast<std::size_t>(*m.integer("dimensions")), c.seed);
                },
                .profile = {},
                .check = {},
                .example = "{kind: matrix_factorization, dimensions: 4}",
                .example_data = "{kind: low_rank_ratings, samples: 5000, users: 100, items: 80}"});
}

}  // namespace dtsim::models
