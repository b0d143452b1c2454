#include "sim/scenario/scenario_reader.hpp"

#include "scenario_text.hpp"
#include "tests/support/scenario_format.hpp"

#include <gtest/gtest.h>

namespace dtsim::scenario {
namespace {

// A complete scenario; tests replace one line at a time.
const std::string kValid = R"(name: small
seed: 3
cluster:
  workers: 4
  device:
    peak_flops: "10TFLOPS"
    efficiency: 0.5
topology:
  kind: ring
  link:
    bandwidth: "10Gbps"
    latency: "5us"
model:
  kind: logistic_regression
data:
  kind: synthetic_classification
  samples: 1000
  features: 8
training:
  batch:
    per_worker: 16
  optimizer:
    learning_rate: 0.5
  stop:
    epochs: 2
)";

std::string error_of(const std::string& text) {
  try {
    read_scenario_text(dtsim::test::scenario_format(), text, "s.yaml");
  } catch (const core::InputError& error) {
    return error.what();
  }
  return "no error";
}

TEST(ScenarioReader, ReadsEverySectionWithUnitsAndDefaults) {
  const Scenario s = read_scenario_text(dtsim::test::scenario_format(), kValid, "s.yaml");
  EXPECT_EQ(s.name, "small");
  EXPECT_EQ(s.seed, 3U);
  EXPECT_EQ(s.cluster.workers, 4);
  EXPECT_DOUBLE_EQ(s.cluster.device.peak_flops.value(), 1e13);
  EXPECT_DOUBLE_EQ(s.cluster.device.efficiency, 0.5);
  EXPECT_EQ(s.topology.kind.value, "ring");
  EXPECT_EQ(s.topology.kind.where.line, 9);
  EXPECT_EQ(s.topology.kind.where.column, 9);
  EXPECT_DOUBLE_EQ(s.topology.link.bandwidth.value(), 1.25e9);
  EXPECT_DOUBLE_EQ(s.topology.link.latency.value(), 5e-6);
  EXPECT_EQ(s.topology.network_model, NetworkModel::AlphaBeta);
  EXPECT_EQ(core::View(&s.data.section, "data").integer("samples"), 1000);
  EXPECT_DOUBLE_EQ(s.data.validation_fraction, 0.2);
  EXPECT_EQ(s.training.batch_per_worker, 16);
  EXPECT_EQ(s.training.optimizer.kind.value, "sgd");
  EXPECT_EQ(s.training.sync_strategy.value, "bsp");
  EXPECT_EQ(s.training.architecture, Architecture::Allreduce);
  EXPECT_EQ(s.training.allreduce_algorithm.value, "ring");
  EXPECT_EQ(s.training.epochs, 2);
}

// A sweep a study generates has no lines the user wrote: each problem of a point names the point by its label
// (LoadOptions::name_points). Worker 3 exists over 4 and 8 workers, not over 2.
TEST(ScenarioReader, AGeneratedSweepsProblemNamesThePointItIsIn) {
  const std::string swept =
      kValid + "stragglers:\n  - {workers: [3], slowdown: 2}\nsweep:\n  axes:\n    cluster.workers: [2, 4, 8]\n";
  const auto error_with = [&](const LoadOptions& options) -> std::string {
    try {
      static_cast<void>(read_scenario_document_text(dtsim::test::scenario_format(), swept, "s.yaml", options));
    } catch (const core::InputError& error) {
      return error.what();
    }
    return "no error";
  };
  const std::string problem =
      "s.yaml:27:16: error: stragglers[0].workers[0]: worker 3 does not exist; ranks run from 0 to 1";
  EXPECT_EQ(error_with({}), problem);
  LoadOptions named;
  named.name_points = true;
  EXPECT_EQ(error_with(named), problem + "\n  hint: in sweep point workers=2");
}

TEST(ScenarioReader, UnknownKeySuggestsTheClosest) {
  EXPECT_EQ(error_of(testing::replace_once(kValid, "  workers: 4", "  workers: 4\n  wrokers: 5")),
            "s.yaml:5:3: error: cluster.wrokers: unknown key\n  hint: did you mean 'workers'?");
}

TEST(ScenarioReader, BareNumberWhereAUnitIsNeeded) {
  EXPECT_EQ(error_of(testing::replace_once(kValid, "\"10Gbps\"", "10")),
            "s.yaml:11:16: error: topology.link.bandwidth: a bandwidth needs a unit, got the bare number \"10\"\n"
            "  hint: write it with a unit, for example \"10Gbps\"");
}

TEST(ScenarioReader, OutOfRangeValue) {
  EXPECT_EQ(error_of(testing::replace_once(kValid, "workers: 4", "workers: 0")),
            "s.yaml:4:12: error: cluster.workers: must be between 1 and 65536, got 0");
}

TEST(ScenarioReader, WrongType) {
  EXPECT_EQ(error_of(testing::replace_once(kValid, "epochs: 2", "epochs: many")),
            "s.yaml:25:13: error: training.stop.epochs: expected a whole number, got \"many\"");
}

TEST(ScenarioReader, MissingKeyPointsAtItsMapping) {
  EXPECT_EQ(error_of(testing::replace_once(kValid, "  samples: 1000\n", "")),
            "s.yaml:16:3: error: data.samples: missing required key");
}

TEST(ScenarioReader, FeatureOfALaterVersionIsNotSupportedYetNotIgnored) {
  EXPECT_EQ(error_of(testing::replace_once(kValid, "    epochs: 2\n", "    epochs: 2\n    sim_time: 1s\n")),
            "s.yaml:26:5: error: training.stop.sim_time: not supported yet\n"
            "  hint: dtsim checks this key but cannot simulate it yet; remove it");
}

TEST(ScenarioReader, FixedStragglerSlowdownsMultiplyPerWorker) {
  const scenario::Scenario s = scenario::read_scenario_text(dtsim::test::scenario_format(), 
      kValid + "stragglers:\n  - {workers: [1, 3], slowdown: 2}\n  - {workers: [3], slowdown: 1.5}\n  - {slowdown: 2}\n",
      "s.yaml");
  EXPECT_EQ(s.cluster.slowdown, (std::vector<double>{2, 4, 2, 6}));
}

TEST(ScenarioReader, ReportsAllErrorsOfAFileAtOnce) {
  const std::string text = testing::replace_once(testing::replace_once(kValid, "workers: 4", "workers: -2"), "latency: \"5us\"", "latency: fast");
  const std::string message = error_of(text);
  EXPECT_NE(message.find("cluster.workers"), std::string::npos) << message;
  EXPECT_NE(message.find("topology.link.latency"), std::string::npos) << message;
}

TEST(ScenarioReader, InvalidYamlNamesTheFileAndPosition) {
  EXPECT_EQ(error_of("name: [unclosed\n"), "s.yaml:2:1: error: not valid YAML: end of sequence flow not found");
}

TEST(ScenarioReader, DocumentThatIsNotAMapping) {
  EXPECT_EQ(error_of("- just\n- a list\n"),
            "s.yaml: error: a scenario must be a YAML mapping (name:, cluster:, topology:, ...); got a list\n"
            "  hint: start from scenarios/quickstart.yaml");
}

TEST(ScenarioReader, UnknownNetworkModel) {
  EXPECT_EQ(error_of(testing::replace_once(kValid, "    latency: \"5us\"\n", "    latency: \"5us\"\n  network_model: ns3\n")),
            "s.yaml:13:18: error: topology.network_model: unknown network model 'ns3'\n"
            "  hint: valid network model names: alpha_beta, tcp, analytical, closed_form");
}

TEST(ScenarioReader, MissingFileIsOneLineNamingIt) {
  try {
    read_scenario_file(dtsim::test::scenario_format(), "/nonexistent/dir/s.yaml");
    FAIL();
  } catch (const core::InputError& error) {
    EXPECT_STREQ(error.what(), "/nonexistent/dir/s.yaml: error: cannot read scenario file: No such file or directory");
  }
}

}  // namespace
}  // namespace dtsim::scenario
