#pragma once
// What a scenario trains on: its data (generated or read by the data set's entry), their shape, and the
// model's shape from them.

#include "datasets/data_plugin.hpp"
#include "models/batch_schedule.hpp"
#include "models/dataset.hpp"
#include "models/model_plugin.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace dtsim::checks {

using datasets::DataShape;
using datasets::LoadedData;
using datasets::SampleKind;

/// The folder of the real data sets: $DTSIM_DATA if set; else, for an installed dtsim, <prefix>/share/dtsim/data
/// (found from where the dtsim executable or the Python module lies); else the data/ folder of the sources
/// dtsim was built from.
std::filesystem::path data_folder();

/// The scenario document at `path`. When the file has errors and its data section has none, the data file
/// is read as well and its problems are reported with the others (the scenario's errors would otherwise hide
/// them until fixed).
/// With `load.confine` (a canonical folder), includes and the files the scenario names (`path`, `file`: data,
/// traces) must lie in it: any outside is an error, and is not read (but `load.study_scenario`, the scenario a
/// study's generated scenario includes).
scenario::ScenarioDocument read_document_and_data(const scenario::ScenarioFormat& format, const std::filesystem::path& path,
                                                  const std::optional<std::string>& only_point = std::nullopt,
                                                  const scenario::LoadOptions& load = {});

/// LoadOptions confined to `confine` (a canonical folder), or not confined.
scenario::LoadOptions confined_load(const std::optional<std::filesystem::path>& confine);

/// `--confine DIR` as dtsim keeps it: the folder, canonical, or an error naming it.
std::filesystem::path confinement_folder(const std::filesystem::path& folder);

/// Under `--confine DIR` (canonical), a result folder not given on the command line (the scenario's
/// `outputs.folder`, or out/<name> by default) must lie in DIR: an InputError at `named_at` otherwise.
/// `folder` is not checked without `confine`, nor when `from_command_line`.
void check_confined_output(const std::filesystem::path& folder, bool from_command_line, const core::SourcePosition& named_at,
                           const std::optional<std::filesystem::path>& confine);

/// The scenario's data as far as checking needs it: its shape, and the data set itself where finding the
/// shape already made it. Throws core::InputError for a data file that cannot be read.
LoadedData load_data(const scenario::Scenario& s, const datasets::DataRegistry& data_sets);

/// How many of `data`'s samples are held out for validation.
std::size_t validation_count(const scenario::Scenario& s, const DataShape& data);

/// The scenario's data, split into training and validation parts.
models::SplitDataset make_data(const scenario::Scenario& s, const datasets::DataRegistry& data_sets);

/// Orders `data`'s training part so that the schedule's contiguous shards hold the samples the scenario's
/// `data.partitioning` gives each worker.
void partition(const scenario::Scenario& s, const models::BatchSchedule& schedule, models::SplitDataset& data);

/// The scenario's model for data of `data`'s shape, or null after reporting into `sink` why it cannot train
/// on them (a classifier on ratings, a binary model on more classes, ...).
std::unique_ptr<models::TrainableModel> make_model(const scenario::Scenario& s, const DataShape& data,
                                                   const models::ModelRegistry& registry, core::DiagnosticSink& sink);

}  // namespace dtsim::checks
