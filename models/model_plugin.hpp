#pragma once
// A model as a plug-in: one registry entry holds its parameters (the keys of `model` beside `kind`, each
// declared with its type, range, default and doc), the samples it trains on, how it is built from the
// validated section and its data's shape (or, for a timing-only layer table, its profile), its own rules
// about the data, and an example. The scenario format, the JSON Schema, the reference and `dtsim list
// models` are generated from the entries.

#include "models/dataset.hpp"
#include "models/model_profile.hpp"
#include "models/trainable_model.hpp"
#include "sim/core/config_view.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/registry.hpp"
#include "sim/core/schema.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::models {

/// What a model is built for, besides its own section.
struct ModelContext {
  DataShape data;
  std::string data_kind;  ///< `data.kind`, for messages
  std::uint64_t seed = 0;  ///< for models that start from random values
};

struct ModelPlugin {
  /// Its keys of the `model` section; they apply only when this model is chosen.
  std::vector<core::SchemaNode> parameters;
  /// The samples it trains on; none for a timing-only layer table.
  std::optional<SampleKind> trains_on;
  /// Builds the model from the validated `model` section (defaults filled in) for data of the context's shape.
  std::function<std::unique_ptr<TrainableModel>(const core::View& section, const ModelContext&)> make;
  /// A timing-only layer table (no values, the same time and traffic): its profile for the section. Throws
  /// std::invalid_argument for options the model cannot take (a sequence longer than its positions).
  std::function<ModelProfile(const core::View& section)> profile;
  /// Reports data of the right sample kind it still cannot train on (a binary model on more classes), at the
  /// section's `kind`; empty when there is nothing to check.
  std::function<void(const core::View& section, const ModelContext&, core::DiagnosticSink&)> check;
  /// Whether the CUDA backend computes it.
  bool runs_on_cuda = false;
  /// A `model` mapping, and the `data` mapping it trains on: the reference shows them and the tests read them.
  std::string example;
  std::string example_data = "{kind: iris}";

  [[nodiscard]] bool timing_only() const { return static_cast<bool>(profile); }
};

using ModelRegistry = core::Registry<ModelPlugin>;

/// The `embedding size` key the embedding models share, declared once so that each declares it alike.
core::SchemaNode dimensions_parameter();
/// The keys of a mixture of experts, which the moe model and the decoder profiles share: `experts`, `top_k`
/// and `expert_width`.
core::SchemaNode experts_parameter();
core::SchemaNode top_k_parameter();
core::SchemaNode expert_width_parameter();
/// The `activation` key of the models with hidden layers (relu or tanh, relu by default).
core::SchemaNode activation_parameter();

/// The registered names, in registration order, of the models `keep` selects, as "a, b or c".
std::string model_names(const ModelRegistry& registry, const std::function<bool(const ModelPlugin&)>& keep);

/// Adds every built-in model, each family from its own file (the list is in models/CMakeLists.txt).
void register_builtin_models(ModelRegistry& registry);

}  // namespace dtsim::models
