#pragma once
// Labelled tables from CSV files, and how a table becomes training and validation data.

#include "models/dataset.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace dtsim::models {

struct LabelledTable {
  FeatureMatrix features;
  Eigen::VectorXf labels;  ///< class indices 0..classes-1
  std::vector<std::string> class_names;
};

/// Reads a CSV table: an optional header row `samples,features,<class names...>` (told apart by a token
/// that is not a number), then one row per sample: the features, then the class index. Without a header the
/// classes are 0..the largest label. Throws core::InputError naming file:line for a row that is not numbers,
/// a row of another width, a label that is not a class index, or a sample count that differs from the header.
LabelledTable read_labelled_csv(const std::filesystem::path& path);

/// Shuffles the rows with the stream "data/<name>/split" of `seed`, keeps the last `validation_fraction` of
/// them (rounded) for validation, and standardizes every feature by the training part's mean and standard
/// deviation (a constant feature is only centred).
SplitDataset split_and_standardize(const LabelledTable& table, double validation_fraction, std::uint64_t seed,
                                   const std::string& name);

}  // namespace dtsim::models
