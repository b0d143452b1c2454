#pragma once
// What a scenario trains on: its data (generated or read), their shape, and the model's shape from them.

#include "models/batch_schedule.hpp"
#include "models/dataset.hpp"
#include "models/model_registry.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/scenario/scenario.hpp"

#include <filesystem>
#include <optional>

namespace dtsim::app {

/// What a sample is: a labelled feature vector, a (user, item) rating, or a (word, context) co-occurrence.
enum class SampleKind { Classified, Rating, Cooccurrence };

struct DataShape {
  std::size_t samples = 0;
  std::size_t features = 0;
  std::size_t classes = 0;  ///< 0 for ratings and co-occurrences
  SampleKind kind = SampleKind::Classified;
  std::size_t words = 0;  ///< co-occurrences: the vocabulary
};

/// The folder of the real data sets: $DTSIM_DATA if set, else the data/ folder of the sources dtsim was
/// built from.
std::filesystem::path data_folder();

/// The scenario's data as far as checking needs it: its shape, and the data set itself where finding the
/// shape already made it (a file or a text corpus is read and tokenised once, for the checks and the run).
/// Generated data are not generated here: their shape follows from the scenario.
struct LoadedData {
  DataShape shape;
  std::optional<models::SplitDataset> data;
};

/// Throws core::InputError for a data file that cannot be read.
LoadedData load_data(const scenario::Scenario& s);

/// How many of `data`'s samples are held out for validation.
std::size_t validation_count(const scenario::Scenario& s, const DataShape& data);

/// The scenario's data, split into training and validation parts.
models::SplitDataset make_data(const scenario::Scenario& s);

/// Orders `data`'s training part so that the schedule's contiguous shards hold the samples the scenario's
/// `data.partitioning` gives each worker.
void partition(const scenario::Scenario& s, const models::BatchSchedule& schedule, models::SplitDataset& data);

/// The shape the model is built for.
models::ModelShape model_shape(const scenario::Scenario& s, const DataShape& data);

/// Reports a model that cannot train on the data (a classifier on ratings, a binary model on more
/// classes, ...) into `sink`; returns whether they fit.
bool check_model_fits_data(const scenario::Scenario& s, const DataShape& data, core::DiagnosticSink& sink);

}  // namespace dtsim::app
