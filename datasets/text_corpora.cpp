#include "datasets/data_plugin.hpp"

namespace dtsim::datasets {
namespace {

/// The co-occurrences of `file`'s words, errors in it pointing at the scenario key that named it.
LoadedData corpus(const std::filesystem::path& file, const core::SourcePosition& named_at, const std::string& key,
                  const core::View& d, const DataContext& c) {
  const models::TokenizedText text = read_pointing_at(
      named_at, key, [&] { return models::read_text_corpus(file, static_cast<std::size_t>(*d.integer("vocabulary"))); });
  return cooccurrences(text, d, c);
}

}  // namespace

/// The bundled King James Bible and any text file: sentences of words, as co-occurrences.
void register_text_corpora(DataRegistry& registry) {
  registry.add("kjv", "the King James Bible (31,102 verses), as word co-occurrences",
               {.parameters = {vocabulary_parameter(), window_parameter()},
                .load = [](const core::View& d, const DataContext& c) {
                  return corpus(c.data_folder / "kjv.txt.gz", d.where("kind"), "data.kind", d, c);
                },
                .make = {},
                .check = {},
                .example = "{kind: kjv, vocabulary: 500, window: 3}",
                .example_model = "{kind: glove, dimensions: 8}"});
  registry.add("text", "a text file named by `path` (plain or .gz, a sentence per line), as word co-occurrences",
               {.parameters = {path_parameter(), vocabulary_parameter(), window_parameter()},
                .load = [](const core::View& d, const DataContext& c) {
                  return corpus(named_file(d, "path"), d.where("path"), "data.path", d, c);
                },
                .make = {},
                .check = {},
                .example = "{kind: text, path: corpus.txt}",
                .example_model = "{kind: glove, dimensions: 8}"});
}

}  // namespace dtsim::datasets
