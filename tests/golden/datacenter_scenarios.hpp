#pragma once
// Scenarios of training across two datacenters, shared by the tests of the sites topology and of DiLoCo's
// strategies.

#include "run_dtsim.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace dtsim::testing {

/// An MLP on the digits on `workers` workers at `sites` (inside each, `link`) 1 Gb/s and 40 ms apart, under `sync`.
inline std::string digits_at_sites(const std::string& sync, const std::string& sites, int workers,
                                   const std::string& link) {
  return fmt::format(R"(name: two-sites
seed: 3
cluster: {{workers: {}, device: {{name: a100}}}}
topology:
  kind: sites
  link: {}
  sites: {}
  wan: {{bandwidth: "1Gbps", latency: "40ms"}}
model: {{kind: mlp, layers: [16]}}
data: {{kind: digits}}
training:
  batch: {{per_worker: 16}}
  optimizer: {{kind: adam, learning_rate: 0.002}}
  sync: {}
  architecture: {{kind: allreduce, algorithm: ring}}
  stop: {{iterations: 24}}
)",
                     workers, link, sites, sync);
}

/// An MLP on the digits on 8 workers, 4 at each of two sites 1 Gb/s and 40 ms apart, under `sync`.
inline std::string two_sites(const std::string& sync,
                             const std::string& sites = "[{name: a, workers: 4}, {name: b, workers: 4}]") {
  return digits_at_sites(sync, sites, 8, R"({bandwidth: "100Gbps", latency: "5us"})");
}

inline nlohmann::json run_result(const std::filesystem::path& folder, const std::string& name,
                                 const std::string& text) {
  std::ofstream(folder / (name + ".yaml")) << text;
  const CommandResult run =
      run_dtsim(fmt::format("run {} -o {} -q", (folder / (name + ".yaml")).string(), (folder / name).string()));
  EXPECT_EQ(run.exit_status, 0) << run.err;
  return nlohmann::json::parse(read_file(folder / name / "summary.json"))["result"];
}

/// GPT-2 small, timing only, on 2 x `per_site` A100s, `per_site` at each of two sites 10 Gb/s and 40 ms apart, under
/// `sync` for `iterations` steps.
inline std::string gpt2_two_sites(const std::string& sync, int iterations, int per_site = 8) {
  return fmt::format(R"(name: gpt2-two-sites
cluster: {{workers: {2}, device: {{name: a100, precision: bf16}}}}
topology:
  kind: sites
  link: {{bandwidth: "200Gbps", latency: "2us"}}
  sites: [{{name: a, workers: {3}}}, {{name: b, workers: {3}}}]
  wan: {{bandwidth: "10Gbps", latency: "40ms"}}
model: {{kind: "profile:gpt2_small", sequence_length: 1024}}
training:
  batch: {{per_worker: 8}}
  optimizer: {{kind: adam, learning_rate: 0.0001}}
  sync: {0}
  architecture: {{kind: allreduce, algorithm: ring}}
  stop: {{iterations: {1}}}
)",
                     sync, iterations, 2 * per_site, per_site);
}

}  // namespace dtsim::testing
