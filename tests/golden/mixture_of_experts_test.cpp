// Runs of mixtures of experts end to end: what they report of their parameters, and what they do not claim.

#include "run_dtsim.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace dtsim::testing {
namespace {

// profile:gpt with experts (top-2 of 8) against the same GPT dense: the mixture reports its active parameters,
// and gets no prediction interval, which the dense one gets (no test row is a mixture, docs/validation.md), saying
// why; a top_k above the experts is refused at its line.
TEST(MixtureOfExperts, ReportsItsActiveParametersAndClaimsNoInterval) {
  const auto folder = fresh_output_folder("mixture-of-experts");
  for (const std::string experts : {"", ", experts: 8, top_k: 2"}) {
    const auto path = folder / (experts.empty() ? "dense.yaml" : "moe.yaml");
    std::ofstream(path) << fmt::format(R"(name: moe
cluster:
  workers: 8
  device: {{name: h100, precision: mixed}}
topology: {{kind: ring, link: {{bandwidth: 400Gbps, latency: 2us}}}}
model: {{kind: "profile:gpt", blocks: 12, hidden_size: 768, heads: 12{}}}
training:
  batch: {{per_worker: 4}}
  optimizer: {{kind: adam, learning_rate: 0.0001}}
  stop: {{iterations: 2}}
)",
                                       experts);
    const auto out = folder / (experts.empty() ? "dense" : "moe");
    const CommandResult run = run_dtsim("run " + path.string() + " -o " + out.string());
    ASSERT_EQ(run.exit_status, 0) << run.err;
    const nlohmann::json result = nlohmann::json::parse(read_file(out / "summary.json"))["result"];
    EXPECT_EQ(result.contains("interval"), experts.empty());
    EXPECT_EQ(run.out.find("  interval   none: no test row is a mixture of experts (docs/validation.md)\n") !=
                  std::string::npos,
              !experts.empty())
        << run.out;
    EXPECT_EQ(result.contains("active_parameters"), !experts.empty());
    if (!experts.empty()) {
      // Each block holds 8 GELU experts of the dense block's size, and a token passes through 2 of them.
      const double block = (768.0 * 3072 + 3072) + (3072.0 * 768 + 768);
      EXPECT_EQ(result["parameters"].get<double>() - result["active_parameters"].get<double>(), 12 * 6 * block);
      EXPECT_NE(run.out.find(fmt::format("({} parameters, {} active)", result["parameters"].get<std::size_t>(),
                                         result["active_parameters"].get<std::size_t>())),
                std::string::npos)
          << run.out;
    }
  }
  std::ofstream(folder / "bad.yaml") << R"(name: moe
cluster: {workers: 8, device: {name: h100, precision: mixed}}
topology: {kind: ring, link: {bandwidth: 400Gbps, latency: 2us}}
model: {kind: "profile:gpt", blocks: 12, hidden_size: 768, heads: 12, experts: 8, top_k: 9}
training: {batch: {per_worker: 4}, optimizer: {kind: adam, learning_rate: 0.0001}, stop: {iterations: 2}}
)";
  const CommandResult bad = run_dtsim("run " + (folder / "bad.yaml").string() + " -o " + (folder / "bad").string());
  EXPECT_EQ(bad.exit_status, 2);
  EXPECT_NE(bad.err.find("bad.yaml:4:"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("model.top_k: each token sent to 9 of 8 experts"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace dtsim::testing
