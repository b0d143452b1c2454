#include "models/model_plugin.hpp"
#include "models/moe_classifier.hpp"

#include <fmt/format.h>

namespace dtsim::models {
namespace {

std::size_t size_of(const core::View& m, const std::string& key) {
  return static_cast<std::size_t>(m.integer(key).value_or(1));
}

/// A mixture needs its experts and top_k, and routes to at most all of them.
void check_mixture(const core::View& m, core::DiagnosticSink& sink) {
  const std::optional<std::int64_t> experts = m.integer("experts");
  const std::optional<std::int64_t> top_k = m.integer("top_k");
  if (!experts || *experts < 2) {
    sink.error(experts ? m.where("experts") : m.where(), "model.experts",
               experts ? fmt::format("a mixture of experts needs at least 2 experts, and has {}", *experts)
                       : std::string("a mixture of experts needs model.experts"),
               "add experts: 4 (or another count of at least 2)");
  } else if (!top_k) {
    sink.error(m.where(), "model.top_k", "a mixture of experts needs model.top_k, the experts each sample goes to",
               "add top_k: 2 (or 1)");
  } else if (*top_k > *experts) {
    sink.error(m.where("top_k"), "model.top_k",
               fmt::format("each sample goes to top_k of the experts, and top_k is {} of {} experts", *top_k, *experts),
               "use a top_k of at most model.experts (1 or 2 is usual)");
  }
}

MixtureShape shape_of(const core::View& m, const ModelContext& c) {
  return {.features = c.data.features,
          .width = size_of(m, "width"),
          .experts = size_of(m, "experts"),
          .expert_width = static_cast<std::size_t>(m.integer("expert_width").value_or(*m.integer("width"))),
          .classes = c.data.classes,
          .top_k = size_of(m, "top_k"),
          .activation = m.text("activation") == "tanh" ? Activation::Tanh : Activation::Relu};
}

}  // namespace

void register_moe(ModelRegistry& registry) {
  registry.add(
      "moe",
      "mixture of experts: a dense trunk, a gate choosing each sample's top-k of several MLP experts, their "
      "outputs weighted by the gate's probabilities, softmax cross-entropy",
      {.parameters = {experts_parameter(), top_k_parameter(),
                      core::integer("width", 1, 65'536, "the trunk's outputs, which the gate and the experts read")
                          .fallback("32"),
                      expert_width_parameter(),
                      activation_parameter()},
       .trains_on = SampleKind::Classified,
       .make = [](const core::View& m, const ModelContext& c) {
         return std::make_unique<MoeClassifier>(shape_of(m, c), c.seed);
       },
       .profile = {},
       .check = [](const core::View& m, const ModelContext&, core::DiagnosticSink& sink) { check_mixture(m, sink); },
       .example = "{kind: moe, experts: 4, top_k: 2, width: 32, expert_width: 32}",
       .example_data = "{kind: digits}"});
}

}  // namespace dtsim::models
