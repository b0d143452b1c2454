#pragma once
// Trainable models, registered by the name used in `model.kind`.

#include "models/trainable_model.hpp"
#include "sim/core/registry.hpp"

#include <functional>
#include <memory>

namespace dtsim::models {

/// Builds a model for data with `features` input features.
using ModelFactory = std::function<std::unique_ptr<TrainableModel>(std::size_t features)>;
using ModelRegistry = core::Registry<ModelFactory>;

void register_builtin_models(ModelRegistry& registry);

}  // namespace dtsim::models
