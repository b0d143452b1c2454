#include "datasets/data_plugin.hpp"

#include "models/cooccurrence.hpp"

namespace dtsim::datasets {

core::SchemaNode samples_parameter() {
  return core::integer("samples", 2, 100'000'000, "number of samples generated").require();
}

core::SchemaNode features_parameter() {
  return core::integer("features", 1, 1'000'000, "features per sample").require();
}

core::SchemaNode path_parameter() { return core::text("path", "the file, relative to the scenario").require(); }

core::SchemaNode vocabulary_parameter() {
  return core::integer("vocabulary", 1, 1 << 24, "text: the most frequent words kept (the others are dropped)")
      .fallback("2000");
}

core::SchemaNode window_parameter() {
  return core::integer("window", 1, 100, "text: words at most this far apart in a sentence co-occur, weighted 1/distance")
      .fallback("5");
}

std::filesystem::path named_file(const core::View& section, const std::string& key) {
  return std::filesystem::path(section.where(key).file).parent_path() / section.text(key);
}

LoadedData generated_vectors(const core::View& section, std::size_t classes) {
  return {.shape = {.samples = static_cast<std::size_t>(*section.integer("samples")),
                    .features = static_cast<std::size_t>(*section.integer("features")),
                    .classes = classes},
          .data = std::nullopt};
}

LoadedData cooccurrences(const models::TokenizedText& text, const core::View& section, const DataContext& context) {
  models::SplitDataset pairs = models::make_cooccurrence(text, static_cast<std::size_t>(*section.integer("window")),
                                                         context.validation_fraction, context.seed);
  const DataShape shape{.samples = pairs.train.size() + pairs.validation.size(),
                        .features = 2,
                        .kind = SampleKind::Cooccurrence,
                        .words = text.words.size()};
  return {.shape = shape, .data = std::move(pairs)};
}

models::SplitDataset make_data(const DataPlugin& plugin, const core::View& section, const DataContext& context) {
  if (plugin.make) return plugin.make(section, context);
  LoadedData loaded = plugin.load(section, context);
  return std::move(*loaded.data);
}

}  // namespace dtsim::datasets
