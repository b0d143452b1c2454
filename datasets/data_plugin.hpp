#pragma once
// A data set as a plug-in: one registry entry holds its parameters (the keys of `data` beside `kind`, each
// declared with its type, range, default and doc), how it finds its shape and makes its samples from the
// validated section, its own consistency rules, and an example. The scenario format, the JSON Schema, the
// reference and `dtsim list data` are generated from the entries.

#include "models/dataset.hpp"
#include "models/text_corpus.hpp"
#include "sim/core/config_view.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/registry.hpp"
#include "sim/core/schema.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::datasets {

using models::DataShape;
using models::SampleKind;

/// What a data set is made for, besides its own section.
struct DataContext {
  std::uint64_t seed = 0;
  double validation_fraction = 0.2;
  std::filesystem::path data_folder;  ///< where the bundled data sets (digits.csv, kjv.txt.gz, ...) lie
};

/// The shape, and the data set itself where finding the shape already made it (a file or a corpus is read
/// and tokenised once, for the checks and the run). Generated data are not generated for their shape.
struct LoadedData {
  DataShape shape;
  std::optional<models::SplitDataset> data;
};

struct DataPlugin {
  /// Its keys of the `data` section; they apply only when this data set is chosen.
  std::vector<core::SchemaNode> parameters;
  /// The shape from the validated `data` section (defaults filled in), reading what must be read; throws
  /// core::InputError for a file that cannot be read, pointing at the key that named it.
  std::function<LoadedData(const core::View& section, const DataContext&)> load;
  /// The samples, split into training and validation parts; when empty, those `load` made.
  std::function<models::SplitDataset(const core::View& section, const DataContext&)> make;
  /// Reports what passes each key's own declaration but not the other keys, at the value's position.
  std::function<void(const core::View& section, core::DiagnosticSink&)> check;
  /// A `data` mapping, and the `model` mapping that trains on it: the reference shows them, the tests read them.
  std::string example;
  std::string example_model = "{kind: softmax_regression}";
  /// Whether the samples are generated, their number set by `samples` (else they are what a file holds).
  bool generated = false;
};

using DataRegistry = core::Registry<DataPlugin>;

/// Keys that several data sets read, declared once so that each declares them alike.
core::SchemaNode samples_parameter();
core::SchemaNode features_parameter();
core::SchemaNode path_parameter();
core::SchemaNode vocabulary_parameter();
core::SchemaNode window_parameter();

/// The file named by `key`, relative to the file that declares it (as includes are).
std::filesystem::path named_file(const core::View& section, const std::string& key);

/// Runs `read`; a core::InputError it throws (a bad line of a data file) is reported under `key` (such as
/// `data.path`) as reached from the scenario's `named_at`, where that key named the file.
template <class Read>
auto read_pointing_at(const core::SourcePosition& named_at, const std::string& key, Read read) -> decltype(read()) {
  try {
    return read();
  } catch (const core::InputError& error) {
    std::vector<core::Diagnostic> diagnostics = error.diagnostics();
    for (core::Diagnostic& diagnostic : diagnostics) {
      diagnostic.where.included_from.push_back(named_at);
      if (diagnostic.key.empty()) diagnostic.key = key;
    }
    throw core::InputError(std::move(diagnostics));
  }
}

/// The shape of generated labelled vectors: the section's `samples` and `features`, and `classes` classes.
LoadedData generated_vectors(const core::View& section, std::size_t classes);

/// A text's word co-occurrences within the section's `window`, as a data set and its shape.
LoadedData cooccurrences(const models::TokenizedText& text, const core::View& section, const DataContext& context);

/// The data set, made by its entry (its `make`, or what its `load` read).
models::SplitDataset make_data(const DataPlugin& plugin, const core::View& section, const DataContext& context);

/// Adds every built-in data set, each from its own file (the list is in datasets/CMakeLists.txt).
void register_builtin_data_sets(DataRegistry& registry);

}  // namespace dtsim::datasets
