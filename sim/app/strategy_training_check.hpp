#pragma once
// What `dtsim check-plugin` runs on a plug-in's sync strategy: a small training run with the strategy's own
// example as training.sync, on the architecture it accepts. Called in a child process (it simulates).

#include <filesystem>
#include <string>

namespace dtsim::app {

struct StrategyTraining {
  std::string architecture;  ///< "allreduce" or "parameter server": the first the scenario checks accept
  double initial_val_loss = 0.0;
  double final_val_loss = 0.0;
  long long iterations = 0;
  std::string fingerprint;  ///< a hash of the run's summary.json and metrics.csv
};

/// Loads `plugin`, trains a logistic regression on 4 workers for 2 epochs under strategy `name` (its registry
/// example as training.sync) in `folder` (created, then removed), and returns what it measured. Throws
/// core::InputError when neither an allreduce nor a parameter server accepts the strategy, with both reasons.
StrategyTraining train_with_strategy(const std::filesystem::path& plugin, const std::string& name,
                                     const std::filesystem::path& folder);

/// The run as one line of text, for a child process to return; and back.
std::string to_text(const StrategyTraining& run);
StrategyTraining strategy_training_from_text(const std::string& text);

}  // namespace dtsim::app
