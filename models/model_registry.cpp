#include "models/model_registry.hpp"

#include "models/dense_classifier.hpp"
#include "models/glove.hpp"
#include "models/logistic_regression.hpp"
#include "models/matrix_factorization.hpp"

namespace dtsim::models {

void register_builtin_models(ModelRegistry& registry) {
  registry.add("logistic_regression", "binary logistic regression (cross-entropy loss)",
               [](const ModelShape& shape) { return std::make_unique<LogisticRegression>(shape.features); });
  registry.add("softmax_regression", "multi-class logistic regression (softmax cross-entropy)",
               [](const ModelShape& shape) {
                 return std::make_unique<DenseClassifier>(shape.features, std::vector<std::size_t>{}, Activation::Relu,
                                                          shape.classes, shape.seed);
               });
  registry.add("mlp", "multi-layer perceptron: dense hidden layers (relu or tanh), softmax cross-entropy",
               [](const ModelShape& shape) {
                 return std::make_unique<DenseClassifier>(shape.features, shape.hidden,
                                                          shape.tanh ? Activation::Tanh : Activation::Relu,
                                                          shape.classes, shape.seed);
               });
  registry.add("matrix_factorization", "biased matrix factorization of a ratings matrix (sparse rows per user and item)",
               [](const ModelShape& shape) {
                 return std::make_unique<MatrixFactorization>(shape.users, shape.items, shape.dimensions, shape.seed);
               });
  registry.add("glove", "GloVe word embeddings: word and context vectors fit to log co-occurrence counts (sparse rows)",
               [](const ModelShape& shape) {
                 return std::make_unique<Glove>(shape.words, shape.dimensions, shape.x_max, shape.alpha, shape.seed);
               });
}

}  // namespace dtsim::models
