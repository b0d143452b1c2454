#pragma once
// Trainable models, registered by the name used in `model.kind`.

#include "models/trainable_model.hpp"
#include "sim/core/registry.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace dtsim::models {

/// What a model is built for: the data's shape and the model's own settings.
struct ModelShape {
  std::size_t features = 0;    ///< input features of classification data
  std::size_t classes = 2;     ///< classes of classification data
  std::vector<std::size_t> hidden;  ///< mlp: hidden layer widths
  bool tanh = false;           ///< mlp: tanh instead of relu
  std::size_t users = 0;       ///< rows of a ratings matrix
  std::size_t items = 0;       ///< columns of a ratings matrix
  std::size_t dimensions = 8;  ///< embedding size
  std::size_t words = 0;       ///< glove: vocabulary
  double x_max = 100.0;        ///< glove: count from which a pair gets full weight
  double alpha = 0.75;         ///< glove: weighting exponent
  std::uint64_t seed = 0;      ///< for models that start from random values
};

using ModelFactory = std::function<std::unique_ptr<TrainableModel>(const ModelShape& shape)>;
using ModelRegistry = core::Registry<ModelFactory>;

void register_builtin_models(ModelRegistry& registry);

}  // namespace dtsim::models
