#include "models/model_registry.hpp"

#include "models/logistic_regression.hpp"
#include "models/matrix_factorization.hpp"

namespace dtsim::models {

void register_builtin_models(ModelRegistry& registry) {
  registry.add("logistic_regression", "binary logistic regression (cross-entropy loss)",
               [](const ModelShape& shape) { return std::make_unique<LogisticRegression>(shape.features); });
  registry.add("matrix_factorization", "biased matrix factorization of a ratings matrix (sparse rows per user and item)",
               [](const ModelShape& shape) {
                 return std::make_unique<MatrixFactorization>(shape.users, shape.items, shape.dimensions, shape.seed);
               });
}

}  // namespace dtsim::models
