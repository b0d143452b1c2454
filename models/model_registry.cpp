#include "models/model_registry.hpp"

#include "models/logistic_regression.hpp"

namespace dtsim::models {

void register_builtin_models(ModelRegistry& registry) {
  registry.add("logistic_regression", "binary logistic regression (cross-entropy loss)",
               [](std::size_t features) { return std::make_unique<LogisticRegression>(features); });
}

}  // namespace dtsim::models
