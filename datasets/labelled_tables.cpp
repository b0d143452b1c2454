#include "datasets/data_plugin.hpp"
#include "models/labelled_csv.hpp"


namespace dtsim::datasets {
namespace {

/// A CSV table of features then a class, read (errors pointing at the key that named it), standardised and
/// split; `name` labels it in messages.
LoadedData table(const std::filesystem::path& file, const core::SourcePosition& named_at, const std::string& key,
                 const std::string& name, const DataContext& c) {
  const models::LabelledTable read = read_pointing_at(named_at, key, [&] { return models::read_labelled_csv(file); });
  const DataShape shape{.samples = static_cast<std::size_t>(read.features.rows()),
                        .features = static_cast<std::size_t>(read.features.cols()),
                        .classes = read.class_names.size()};
  // A split leaving either part empty is reported by the checks, at the scenario's keys; the run never gets
  // there.
  const std::size_t validation = models::held_out(shape.samples, c.validation_fraction);
  if (validation == 0 || validation >= shape.samples) return {.shape = shape, .data = std::nullopt};
  return {.shape = shape, .data = models::split_and_standardize(read, c.validation_fraction, c.seed, name)};
}

/// One of the tables bundled in data/ (name.csv).
DataPlugin bundled(const std::string& name) {
  return {.parameters = {},
          .load = [name](const core::View& d, const DataContext& c) {
            return table(c.data_folder / (name + ".csv"), d.where("kind"), "data.kind", name, c);
          },
          .make = {},
          .check = {},
          .example = "{kind: " + name + "}"};
}

}  // namespace

/// A CSV file of the user's and the classic tables bundled in data/.
void register_labelled_tables(DataRegistry& registry) {
  registry.add("csv", "a CSV file named by `path`: features, then the class index",
               {.parameters = {path_parameter()},
                .load = [](const core::View& d, const DataContext& c) {
                  return table(named_file(d, "path"), d.where("path"), "data.path", "csv", c);
                },
                .make = {},
                .check = {},
                .example = "{kind: csv, path: table.csv}"});
  registry.add("digits", "handwritten digits (8x8 pixels, 10 classes, 1797 samples)", bundled("digits"));
  registry.add("iris", "iris flowers (4 features, 3 classes, 150 samples)", bundled("iris"));
  registry.add("wine", "wine cultivars (13 features, 3 classes, 178 samples)", bundled("wine"));
  registry.add("breast_cancer", "breast cancer diagnoses (30 features, 2 classes, 569 samples)", bundled("breast_cancer"));
}

}  // namespace dtsim::datasets
