#pragma once
// The checks a run makes of a resolved scenario before it simulates (its memory, its stacks, its messages), each
// asked of a scenario's text: the error it throws, or "no error".

#include "sim/checks/registries.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include "tests/support/scenario_format.hpp"

#include <functional>
#include <string>

namespace dtsim::test {

/// A timing-only ResNet-50 on a two-level fat tree of `workers` A100s (`cluster.workers` at s.yaml:3:12).
inline std::string large_fat_tree(int workers) {
  return "name: large\ncluster:\n  workers: " + std::to_string(workers) + R"(
  device: {name: a100, precision: mixed, efficiency: 0.5}
topology:
  kind: fat_tree
  arity: 16
  link: {bandwidth: "200Gbps", latency: "2us"}
model: {kind: "profile:resnet50"}
training:
  batch: {per_worker: 4}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
)";
}

using RunCheck = std::function<void(const scenario::Scenario&, const runtime::TrainingSetup&)>;

/// What `check` says of the scenario `text` (read as s.yaml).
inline std::string refusal_of(const std::string& text, const RunCheck& check) {
  const checks::Registries registries = checks::make_builtin_registries();
  const scenario::Scenario s = scenario::read_scenario_text(dtsim::test::scenario_format(), text, "s.yaml");
  const runtime::TrainingSetup setup = checks::resolve_scenario(s, registries);
  try {
    check(s, setup);
  } catch (const core::InputError& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace dtsim::test
