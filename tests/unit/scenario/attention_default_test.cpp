// `model.attention: auto`, the default: fused where frameworks fuse attention on every worker's device (the
// built-in a100, h100, h200), unfused elsewhere; `dtsim explain` says which and why.

#include "sim/scenario/config_yaml.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include "scenario_text.hpp"
#include "tests/support/scenario_format.hpp"

#include <gtest/gtest.h>

namespace dtsim::scenario {
namespace {

const std::string kProfile = R"(name: attention
cluster:
  workers: 4
  device: {name: a100, precision: mixed}
topology:
  kind: ring
  link: {bandwidth: "100Gbps", latency: "2us"}
model:
  kind: "profile:gpt2_small"
  sequence_length: 128
training:
  batch: {per_worker: 8}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
)";

std::string attention_of(const std::string& text) {
  const Scenario s = read_scenario_text(dtsim::test::scenario_format(), text, "a.yaml");
  return s.model.section.find("attention")->scalar;
}

TEST(AttentionDefault, FusedOnGpusWhereFrameworksFuseIt) {
  EXPECT_EQ(attention_of(kProfile), "fused");
  EXPECT_EQ(attention_of(testing::replace_once(kProfile, "name: a100", "name: h100")), "fused");
  EXPECT_EQ(attention_of(testing::replace_once(kProfile, "name: a100", "name: h200")), "fused");
}

TEST(AttentionDefault, UnfusedWhereNoFusedKernelRuns) {
  EXPECT_EQ(attention_of(testing::replace_once(kProfile, "name: a100", "name: v100")), "unfused");
  EXPECT_EQ(attention_of(testing::replace_once(kProfile, "name: a100", "name: p100")), "unfused");
  // A declared device is not known to fuse it.
  EXPECT_EQ(attention_of(testing::replace_once(kProfile, "{name: a100, precision: mixed}",
                                               "{name: mine, peak_flops: 100TFLOPS, half_flops: 200TFLOPS, precision: mixed}")),
            "unfused");
}

TEST(AttentionDefault, OneWorkerWithoutItUnfusesTheRun) {
  const std::string mixed = testing::replace_once(kProfile, "  device: {name: a100, precision: mixed}\n",
                                                  "  device: {name: a100, precision: mixed}\n"
                                                  "  worker_devices: [{device: v100, workers: [3]}]\n");
  EXPECT_EQ(attention_of(mixed), "unfused");
}

TEST(AttentionDefault, WhatIsWrittenWins) {
  EXPECT_EQ(attention_of(testing::replace_once(kProfile, "sequence_length: 128", "sequence_length: 128\n  attention: unfused")),
            "unfused");
  EXPECT_EQ(attention_of(testing::replace_once(testing::replace_once(kProfile, "name: a100", "name: v100"),
                                               "sequence_length: 128", "sequence_length: 128\n  attention: fused")),
            "fused");
}

TEST(AttentionDefault, ExplainSaysWhichAndWhy) {
  const ScenarioDocument document = read_scenario_document_text(dtsim::test::scenario_format(), kProfile, "a.yaml");
  EXPECT_NE(to_yaml(document.resolved).find("attention: fused  # default: auto, fused: frameworks fuse attention "
                                            "(FlashAttention) on a100"),
            std::string::npos)
      << to_yaml(document.resolved);
  const ScenarioDocument v100 = read_scenario_document_text(dtsim::test::scenario_format(), testing::replace_once(kProfile, "name: a100", "name: v100"), "a.yaml");
  EXPECT_NE(to_yaml(v100.resolved).find("attention: unfused  # default: auto, unfused: no fused attention (FlashAttention) on v100"),
            std::string::npos)
      << to_yaml(v100.resolved);
}

}  // namespace
}  // namespace dtsim::scenario
