#include "datasets/data_plugin.hpp"
#include "models/zipf_text.hpp"

namespace dtsim::datasets {

void register_zipf_text(DataRegistry& registry) {
  registry.add("zipf_text", "seeded Zipf-distributed text with topics, as word co-occurrences",
               {.parameters = {samples_parameter(), vocabulary_parameter(), window_parameter()},
                .load = [](const core::View& d, const DataContext& c) {
                  const models::TokenizedText text = models::make_zipf_text(
                      {.words = static_cast<std::size_t>(*d.integer("samples")),
                       .vocabulary = static_cast<std::size_t>(*d.integer("vocabulary"))},
                      c.seed);
                  return cooccurrences(text, d, c);
                },
                .make = {},
                .check = {},
                .example = "{kind: zipf_text, samples: 20000, vocabulary: 300, window: 4}",
                .example_model = "{kind: glove, dimensions: 8}",
                .generated = true});
}

}  // namespace dtsim::datasets
