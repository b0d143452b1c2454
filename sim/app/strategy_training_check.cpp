#include "sim/app/strategy_training_check.hpp"

#include "sim/app/plugin_loader.hpp"
#include "sim/app/run_command.hpp"
#include "sim/checks/registries.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/rng.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <sstream>
#include <stdexcept>

namespace dtsim::app {
namespace {

/// A small, quick classification problem that any sound strategy learns in 2 epochs (the quickstart's).
std::string scenario_text(const std::string& name, const std::string& sync, bool allreduce) {
  return fmt::format(R"(name: check-{name}
seed: 7
cluster:
  workers: 4
  device: {{name: cpu-core, peak_flops: "100GFLOPS", efficiency: 0.5}}
topology:
  kind: {topology}
  link: {{bandwidth: "10Gbps", latency: "5us"}}
model: {{kind: logistic_regression}}
data: {{kind: synthetic_classification, samples: 4000, features: 32, validation_fraction: 0.2, label_noise: 0.1}}
training:
  batch: {{per_worker: 32}}
  optimizer: {{kind: sgd, learning_rate: 0.5}}
  sync: {sync}
  architecture: {{kind: {architecture}}}
  stop: {{epochs: 2}}
  evaluate_every: 10
)",
                     fmt::arg("name", name), fmt::arg("sync", sync),
                     fmt::arg("topology", allreduce ? "ring" : "parameter_server"),
                     fmt::arg("architecture", allreduce ? "allreduce" : "parameter_server"));
}

/// A file the run wrote, whole (summary.json and metrics.csv of a 2-epoch run: a few KB).
std::string written(const std::filesystem::path& path) {
  std::string reason;
  std::optional<std::string> text = core::read_input_file(path, core::kDataFileLimit, reason);
  if (!text) throw std::runtime_error(fmt::format("{}: {}", path.string(), reason));
  return std::move(*text);
}

}  // namespace

StrategyTraining train_with_strategy(const std::filesystem::path& plugin, const std::string& name,
                                     const std::filesystem::path& folder) {
  checks::Registries registries = checks::make_builtin_registries();
  load_plugins({plugin}, registries);
  const std::string example = registries.strategies.find(name).factory.example;
  const std::string sync = example.empty() ? fmt::format("{{strategy: {}}}", name) : example;
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  std::vector<core::Diagnostic> refusals;
  for (const bool allreduce : {true, false}) {
    const std::filesystem::path scenario = folder / (allreduce ? "allreduce.yaml" : "parameter_server.yaml");
    core::write_file_atomically(scenario, scenario_text(name, sync, allreduce));
    RunCommandOptions options;
    options.scenario_file = scenario;
    options.output_folder = folder / "out";
    options.quiet = true;
    try {
      run_command(options, registries);
    } catch (const core::InputError& refused) {
      refusals.insert(refusals.end(), refused.diagnostics().begin(), refused.diagnostics().end());
      continue;
    }
    const std::string summary_text = written(folder / "out" / "summary.json");
    const nlohmann::json summary = nlohmann::json::parse(summary_text);
    const nlohmann::json& result = summary.at("result");
    StrategyTraining run;
    run.architecture = allreduce ? "allreduce" : "parameter server";
    run.initial_val_loss = result.at("initial").at("val_loss").get<double>();
    run.final_val_loss = result.at("final").at("val_loss").get<double>();
    run.iterations = result.at("iterations").get<long long>();
    run.fingerprint = fmt::format("{:016x}", core::stable_hash(summary_text + written(folder / "out" / "metrics.csv")));
    std::filesystem::remove_all(folder);
    return run;
  }
  std::filesystem::remove_all(folder);
  throw core::InputError(std::move(refusals));
}

std::string to_text(const StrategyTraining& run) {
  return fmt::format("{}|{:.17g}|{:.17g}|{}|{}", run.architecture, run.initial_val_loss, run.final_val_loss,
                     run.iterations, run.fingerprint);
}

StrategyTraining strategy_training_from_text(const std::string& text) {
  std::istringstream in(text);
  StrategyTraining run;
  std::string field;
  std::getline(in, run.architecture, '|');
  std::getline(in, field, '|');
  run.initial_val_loss = std::stod(field);
  std::getline(in, field, '|');
  run.final_val_loss = std::stod(field);
  std::getline(in, field, '|');
  run.iterations = std::stoll(field);
  std::getline(in, run.fingerprint, '|');
  return run;
}

}  // namespace dtsim::app
