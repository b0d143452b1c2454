// The scenario language end to end, without simulating: explain round trips, sweeps, includes, and the
// schema kept in step with the registries and the reference documentation.

#include "../scenario/scenario_text.hpp"
#include "models/model_profile.hpp"
#include "sim/app/document_commands.hpp"
#include "sim/checks/registries.hpp"
#include "sim/checks/scenario_data.hpp"
#include "sim/core/slowdown_distribution.hpp"
#include "sim/scenario/resolved_json.hpp"
#include "sim/scenario/scenario_builder.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "sim/scenario/scenario_schema.hpp"
#include "sim/scenario/schema_reference.hpp"
#include "tests/support/scenario_format.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace dtsim::app {
namespace {

const std::filesystem::path kSource = DTSIM_SOURCE_DIR;

std::filesystem::path scratch(const std::string& name) {
  const auto folder = std::filesystem::path(DTSIM_TEST_OUTPUT_DIR) / "language" / name;
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

void write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Every point as JSON, without the file it came from.
std::vector<nlohmann::ordered_json> points_json(const scenario::ScenarioDocument& document) {
  std::vector<nlohmann::ordered_json> out;
  for (const auto& point : document.points) {
    out.push_back(scenario::resolved_json(dtsim::test::scenario_format().schema(), point.resolved));
  }
  return out;
}

/// The explained YAML without its comments: a default, once written out, reads back as written.
std::string without_comments(const std::string& yaml) {
  std::istringstream in(yaml);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("#")) continue;
    if (const auto mark = line.find("  # default"); mark != std::string::npos) line.erase(mark);
    out += line + "\n";
  }
  return out;
}

std::vector<std::filesystem::path> example_scenarios() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kSource / "scenarios")) {
    const bool catalog = entry.path().string().find("/catalogs/") != std::string::npos;
    if (entry.path().extension() == ".yaml" && !catalog) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ScenarioLanguage, EveryExampleScenarioValidates) {
  const checks::Registries registries = checks::make_builtin_registries();
  const auto files = example_scenarios();
  ASSERT_GE(files.size(), 3U);
  const auto result = validate_command(files, registries);
  EXPECT_TRUE(result.ok) << result.errors;
}

TEST(ScenarioLanguage, ExplainOutputReadsBackToTheSameScenarios) {
  const checks::Registries registries = checks::make_builtin_registries();
  const auto folder = scratch("explain");
  for (const auto& file : example_scenarios()) {
    SCOPED_TRACE(file.string());
    const std::string explained = explain_command(file, registries);
    const auto copy = folder / file.filename();
    write(copy, explained);
    EXPECT_EQ(points_json(scenario::read_scenario_document_file(dtsim::test::scenario_format(), copy)),
              points_json(scenario::read_scenario_document_file(dtsim::test::scenario_format(), file)));
    EXPECT_EQ(without_comments(explain_command(copy, registries)), without_comments(explained));
  }
}

TEST(ScenarioLanguage, ExplainFillsEveryDefault) {
  const checks::Registries registries = checks::make_builtin_registries();
  const std::string explained = explain_command(kSource / "scenarios/quickstart.yaml", registries);
  for (const std::string key : {"sharing: shared  # default", "backend: auto  # default", "kind: iid  # default",
                                "zero: 0  # default", "check_memory: true  # default"}) {
    EXPECT_NE(explained.find(key), std::string::npos) << key << " missing from\n" << explained;
  }
}

// Eight nodes of one 400 Gb/s NIC, two a leaf at oversubscription 4: one spine, each leaf's uplink 2 x 400 / 4 =
// 200 Gb/s (half a link: no whole number of spines gives 4 to 1), and two leaves' uplinks across the rank-order cut.
TEST(ScenarioLanguage, ExplainPrintsTheOversubscriptionAndBisectionBuilt) {
  const checks::Registries registries = checks::make_builtin_registries();
  const std::string explained = explain_command(kSource / "scenarios/cluster/packed-against-spread.yaml", registries);
  EXPECT_NE(explained.find("oversubscription built 4:1, bisection 400 Gbps (across the rank-order cut)"),
            std::string::npos)
      << explained;
}

const std::string kSweepBase = R"(name: grid
cluster: {workers: 4, device: {peak_flops: "10TFLOPS"}}
topology: {kind: ring, link: {bandwidth: "10Gbps", latency: "5us"}}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: 1000, features: 8}
training:
  batch: {per_worker: 16}
  optimizer: {learning_rate: 0.5}
  stop: {epochs: 1}
)";

TEST(Sweep, CartesianVariesTheLastAxisFastestAndNamesPointsByValue) {
  const auto document = scenario::read_scenario_document_text(dtsim::test::scenario_format(), 
      kSweepBase + "sweep:\n  axes:\n    cluster.workers: [2, 4]\n    training.optimizer.learning_rate: [0.1, 0.2, 0.4]\n",
      "grid.yaml");
  ASSERT_EQ(document.points.size(), 6U);
  std::vector<std::string> labels;
  for (const auto& point : document.points) labels.push_back(point.sweep_point);
  EXPECT_EQ(labels, (std::vector<std::string>{"workers=2,learning_rate=0.1", "workers=2,learning_rate=0.2",
                                              "workers=2,learning_rate=0.4", "workers=4,learning_rate=0.1",
                                              "workers=4,learning_rate=0.2", "workers=4,learning_rate=0.4"}));
  EXPECT_EQ(document.points[4].cluster.workers, 4);
  EXPECT_DOUBLE_EQ(document.points[4].training.optimizer.learning_rate, 0.2);
  EXPECT_EQ(document.points[4].name, "grid");
}

TEST(Sweep, ZipPairsTheIthValues) {
  const auto document = scenario::read_scenario_document_text(dtsim::test::scenario_format(), 
      kSweepBase + "sweep:\n  combine: zip\n  axes:\n    cluster.workers: [2, 4, 8]\n    seed: [1, 2, 3]\n",
      "grid.yaml");
  ASSERT_EQ(document.points.size(), 3U);
  EXPECT_EQ(document.points[2].sweep_point, "workers=8,seed=3");
  EXPECT_EQ(document.points[2].cluster.workers, 8);
  EXPECT_EQ(document.points[2].seed, 3U);
}

// A list of layouts is one sweep: zipped axes may repeat a value, and points may be written as points.
TEST(Sweep, PointsAreZippedAxesThatMayRepeatAValue) {
  const auto zipped = scenario::read_scenario_document_text(
      dtsim::test::scenario_format(),
      kSweepBase + "sweep:\n  combine: zip\n  axes:\n    cluster.workers: [2, 2, 4]\n    seed: [1, 2, 1]\n", "grid.yaml");
  const auto listed = scenario::read_scenario_document_text(
      dtsim::test::scenario_format(),
      kSweepBase + "sweep:\n  points:\n    - {cluster.workers: 2, seed: 1}\n    - {seed: 2, cluster.workers: 2}\n"
                   "    - {cluster.workers: 4, seed: 1}\n",
      "grid.yaml");
  for (const auto* document : {&zipped, &listed}) {
    ASSERT_EQ(document->points.size(), 3U);
    EXPECT_EQ(document->points[1].sweep_point, "workers=2,seed=2");
    EXPECT_EQ(document->points[2].sweep_point, "workers=4,seed=1");
    EXPECT_EQ(document->points[2].cluster.workers, 4);
    EXPECT_EQ(document->points[1].seed, 2U);
  }
}

// A list key is swept too: each of its values is a list, named by its items joined with '-'.
TEST(Sweep, AListKeysValuesAreListsInAxesAndPoints) {
  const std::string split = testing::replace_once(kSweepBase, "model: {kind: logistic_regression}",
                                                  "model: {kind: \"profile:gpt2_small\"}");
  const std::string timing = testing::replace_once(
      testing::replace_once(split, "data: {kind: synthetic_classification, samples: 1000, features: 8}\n", ""),
      "stop: {epochs: 1}", "stop: {iterations: 1}\n  parallelism: {tensor: 2, pipeline: 2}");
  const auto axes = scenario::read_scenario_document_text(
      dtsim::test::scenario_format(),
      timing + "sweep:\n  axes:\n    training.parallelism.placement: [[tensor, pipeline, data], [pipeline, tensor, data]]\n",
      "grid.yaml");
  const auto points = scenario::read_scenario_document_text(
      dtsim::test::scenario_format(),
      timing + "sweep:\n  points:\n    - {training.parallelism.placement: [tensor, pipeline, data]}\n"
               "    - {training.parallelism.placement: [pipeline, tensor, data]}\n",
      "grid.yaml");
  using A = scenario::ParallelAxis;
  for (const auto* document : {&axes, &points}) {
    ASSERT_EQ(document->points.size(), 2U);
    EXPECT_EQ(document->points[1].sweep_point, "placement=pipeline-tensor-data");
    EXPECT_EQ(document->points[1].sweep_values, (std::vector<std::string>{"[pipeline tensor data]"}));
    EXPECT_EQ(document->points[1].training.parallelism.placement, (std::vector<A>{A::Pipeline, A::Tensor, A::Data}));
    EXPECT_EQ(document->points[0].training.parallelism.placement, (std::vector<A>{A::Tensor, A::Pipeline, A::Data}));
  }
  // A single value where the key holds a list, and a list where it holds a single value, are refused at the value.
  for (const std::string& sweep : {std::string("    training.parallelism.placement: [tensor]\n"),
                                   std::string("    cluster.workers: [[2, 4]]\n")}) {
    EXPECT_THROW(scenario::read_scenario_document_text(dtsim::test::scenario_format(), timing + "sweep:\n  axes:\n" + sweep,
                                                       "grid.yaml"),
                 core::InputError)
        << sweep;
  }
}

TEST(Sweep, AxesSharingALeafAreNamedByTheirWholePath) {
  const auto document = scenario::read_scenario_document_text(dtsim::test::scenario_format(), 
      testing::replace_once(kSweepBase, "kind: ring,", "kind: parameter_server, server_link: {bandwidth: \"40Gbps\", latency: \"1us\"},") +
          "sweep:\n  axes:\n    topology.link.latency: [1us]\n    topology.server_link.latency: [2us]\n",
      "grid.yaml");
  ASSERT_EQ(document.points.size(), 1U);
  EXPECT_EQ(document.points[0].sweep_point, "topology.link.latency=1us,topology.server_link.latency=2us");
}

TEST(Sweep, AValueThatContradictsTheRestIsReportedAtThatValue) {
  try {
    scenario::read_scenario_document_text(dtsim::test::scenario_format(), kSweepBase + "sweep:\n  axes:\n    training.parallelism.data: [4, 2]\n",
                                          "grid.yaml");
    FAIL() << "a data-parallel degree other than the workers was accepted";
  } catch (const core::InputError& error) {
    EXPECT_STREQ(error.what(), "grid.yaml:12:36: error: training.parallelism.data: data x tensor x pipeline = 2 x 1 x "
                               "1 = 2 workers, and cluster.workers is 4\n  hint: use data: 4 (cluster.workers / "
                               "(tensor x pipeline)), or leave it out");
  }
}

TEST(Sweep, ASingleFileReaderRefusesSeveralPoints) {
  EXPECT_THROW(scenario::read_scenario_text(dtsim::test::scenario_format(), kSweepBase + "sweep:\n  axes:\n    seed: [1, 2]\n", "grid.yaml"),
               core::InputError);
}

TEST(Include, MergesInOrderAndTheIncludingFileWins) {
  const auto folder = scratch("include");
  write(folder / "catalog/devices.yaml", "cluster:\n  workers: 2\n  devices:\n    slow: {peak_flops: \"1TFLOPS\", efficiency: 0.5}\n");
  write(folder / "catalog/more.yaml", "include: devices.yaml\ncluster:\n  devices:\n    slow: {efficiency: 0.25}\n");
  write(folder / "main.yaml", "include: [catalog/more.yaml]\n" +
                                  testing::replace_once(kSweepBase, "{workers: 4, device: {peak_flops: \"10TFLOPS\"}}",
                                                  "{workers: 4, device: {name: slow}}"));
  const auto s = scenario::read_scenario_file(dtsim::test::scenario_format(), folder / "main.yaml");
  EXPECT_EQ(s.cluster.workers, 4);
  EXPECT_EQ(s.cluster.device.name, "slow");
  EXPECT_DOUBLE_EQ(s.cluster.device.peak_flops.value(), 1e12);
  EXPECT_DOUBLE_EQ(s.cluster.device.efficiency, 0.25);
}

// `stop` and `batch` hold alternatives: an including file's stop rule replaces the included one's instead of
// adding a second rule the user never wrote beside it.
TEST(Include, AlternativesAreReplacedWholeNotMerged) {
  const auto folder = scratch("include-alternatives");
  write(folder / "base.yaml", kSweepBase);
  write(folder / "main.yaml", "include: base.yaml\ntraining:\n  batch: {global: 32}\n  stop: {iterations: 40}\n");
  const auto s = scenario::read_scenario_file(dtsim::test::scenario_format(), folder / "main.yaml");
  EXPECT_EQ(s.training.iterations, 40);
  EXPECT_FALSE(s.training.epochs.has_value()) << "the included epochs: 1 must not stay beside iterations: 40";
  EXPECT_EQ(s.training.batch_per_worker, 8);
  EXPECT_DOUBLE_EQ(s.training.optimizer.learning_rate, 0.5) << "ordinary mappings still merge key by key";
}

// A sweep axis written in an included file that does not fit the including file's scenario is reported at
// the axis's own line, with the include that brought it in.
TEST(Include, AnIncludedSweepAxisIsReportedWhereItIsWritten) {
  const auto folder = scratch("include-sweep");
  write(folder / "base.yaml", kSweepBase + "sweep:\n  axes:\n    training.sync.staleness: [1, 2]\n");
  write(folder / "main.yaml", "include: base.yaml\ntraining:\n  sync: {strategy: bsp}\n");
  const auto result = validate_command({folder / "main.yaml"}, checks::make_builtin_registries());
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.errors.find("base.yaml:12:5: error: training.sync.staleness: applies only when strategy is ssp"),
            std::string::npos)
      << result.errors;
  EXPECT_NE(result.errors.find("included from"), std::string::npos) << result.errors;
}

TEST(Include, EveryShippedTopologyPresetCompletesAScenario) {
  const checks::Registries registries = checks::make_builtin_registries();
  const auto folder = scratch("presets");
  int presets = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSource / "topologies/presets")) {
    SCOPED_TRACE(entry.path().string());
    const std::string rest = kSweepBase.substr(kSweepBase.find("model:"));
    const auto file = folder / entry.path().filename();
    write(file, "include: " + entry.path().string() + "\nname: preset\ncluster: {workers: 4, device: {name: v100}}\n" + rest);
    const auto result = validate_command({file}, registries);
    EXPECT_TRUE(result.ok) << result.errors;
    ++presets;
  }
  EXPECT_GE(presets, 2);
}

TEST(Include, BuiltInDeviceNamesNeedNoNumbers) {
  const auto s = scenario::read_scenario_text(dtsim::test::scenario_format(), 
      testing::replace_once(kSweepBase, "device: {peak_flops: \"10TFLOPS\"}", "device: {name: a100, efficiency: 0.4}"),
      "a100.yaml");
  EXPECT_DOUBLE_EQ(s.cluster.device.peak_flops.value(), 19.5e12);
  EXPECT_DOUBLE_EQ(s.cluster.device.efficiency, 0.4);
  EXPECT_DOUBLE_EQ(s.cluster.device.busy_power->value(), 400.0);
}

TEST(Schema, SupportedChoicesAreExactlyTheRegisteredPlugins) {
  const checks::Registries registries = checks::make_builtin_registries();
  EXPECT_EQ(dtsim::test::scenario_format().find("topology.kind")->supported_choices().size(), registries.topologies.names().size());
  for (const auto& name : dtsim::test::scenario_format().find("topology.kind")->supported_choices()) {
    EXPECT_TRUE(registries.topologies.contains(name)) << name;
  }
  EXPECT_EQ(dtsim::test::scenario_format().find("model.kind")->supported_choices(), registries.models.registration_order());
  // Every layer table is a model entry.
  for (const std::string& profile : models::profile_names()) EXPECT_TRUE(registries.models.contains("profile:" + profile));
  auto data_sets = dtsim::test::scenario_format().find("data.kind")->supported_choices();
  EXPECT_EQ(data_sets, registries.data_sets.registration_order());
  auto strategies = dtsim::test::scenario_format().find("training.sync.strategy")->supported_choices();
  std::sort(strategies.begin(), strategies.end());
  EXPECT_EQ(strategies, registries.strategies.names());
  auto algorithms = dtsim::test::scenario_format().find("training.architecture.algorithm")->supported_choices();
  std::sort(algorithms.begin(), algorithms.end());
  EXPECT_EQ(algorithms, registries.collectives.allreduce.names());
}

// Every sync strategy's entry: the `training.sync` its entry documents reads, and each parameter it declares
// refuses a value of the wrong type and one out of its range, at the value's file:line:col.
std::string with_sync(const std::string& sync) {
  return testing::replace_once(kSweepBase, "  stop: {epochs: 1}", "  sync: " + sync + "\n  stop: {epochs: 1}");
}

std::string first_error(const std::string& text) {
  try {
    static_cast<void>(scenario::read_scenario_text(dtsim::test::scenario_format(), text, "entry.yaml"));
  } catch (const core::InputError& error) {
    return error.what();
  }
  return "no error";
}

TEST(Schema, EverySyncStrategyEntryAcceptsItsExampleAndRefusesBadValues) {
  const checks::Registries registries = checks::make_builtin_registries();
  for (const std::string& name : registries.strategies.registration_order()) {
    SCOPED_TRACE(name);
    const auto& entry = registries.strategies.find(name).factory;
    const auto s = scenario::read_scenario_text(dtsim::test::scenario_format(), with_sync(entry.example), "entry.yaml");
    EXPECT_EQ(s.training.sync_strategy.value, name);
    static_cast<void>(entry.make(s.training.sync_parameters));
    for (const scenario::SchemaNode& parameter : entry.parameters) {
      SCOPED_TRACE(parameter.key);
      // The line of training.sync in with_sync's text: kSweepBase's training block, after batch and optimizer.
      const std::string prefix = "{strategy: " + name + ", " + parameter.key + ": ";
      const std::string at = "entry.yaml:9:";
      EXPECT_NE(first_error(with_sync(prefix + "[1, 2]}")).find(at), std::string::npos);
      if (parameter.kind == scenario::ValueKind::Integer || parameter.kind == scenario::ValueKind::Number) {
        const std::string wrong_type = first_error(with_sync(prefix + "many}"));
        EXPECT_NE(wrong_type.find(at), std::string::npos) << wrong_type;
        EXPECT_NE(wrong_type.find("training.sync." + parameter.key), std::string::npos) << wrong_type;
        const std::string below = first_error(with_sync(prefix + "-5}"));
        EXPECT_NE(below.find(at), std::string::npos) << below;
        EXPECT_NE(below.find("training.sync." + parameter.key), std::string::npos) << below;
      } else if (parameter.kind == scenario::ValueKind::Choice || parameter.kind == scenario::ValueKind::Boolean) {
        const std::string unknown = first_error(with_sync(prefix + "sometimes}"));
        EXPECT_NE(unknown.find(at), std::string::npos) << unknown;
      }
    }
  }
}

/// kSweepBase with a topology entry's example (and `link`) on its line 3 and the cluster it fits on line 2.
std::string with_topology(const topologies::TopologyPlugin& entry, const std::string& topology) {
  const std::string cluster = testing::replace_once(kSweepBase, R"(cluster: {workers: 4, device: {peak_flops: "10TFLOPS"}})",
                                                    "cluster: " + entry.example_cluster);
  return testing::replace_once(cluster, R"(topology: {kind: ring, link: {bandwidth: "10Gbps", latency: "5us"}})",
                               "topology: " + testing::replace_once(topology, "{", "{link: {bandwidth: 10Gbps, latency: 5us}, "));
}

TEST(Schema, EveryTopologyEntryAcceptsItsExampleAndRefusesBadValues) {
  const checks::Registries registries = checks::make_builtin_registries();
  for (const std::string& name : registries.topologies.registration_order()) {
    SCOPED_TRACE(name);
    const auto& entry = registries.topologies.find(name).factory;
    const auto s = scenario::read_scenario_text(dtsim::test::scenario_format(), with_topology(entry, entry.example), "entry.yaml");
    EXPECT_EQ(s.topology.kind.value, name);
    const topology::TopologyGraph graph = scenario::build_topology(s, registries.topologies);
    EXPECT_EQ(graph.workers().size(), static_cast<std::size_t>(s.cluster.workers));
    for (const scenario::SchemaNode& parameter : entry.parameters) {
      SCOPED_TRACE(parameter.key);
      const std::string prefix = "{kind: " + name + ", " + parameter.key + ": ";
      std::vector<std::string> bad;
      if (parameter.kind == scenario::ValueKind::Integer || parameter.kind == scenario::ValueKind::Number) {
        bad = {"many", "-5", "[1, 2]"};
      } else if (parameter.kind == scenario::ValueKind::Choice || parameter.kind == scenario::ValueKind::Boolean) {
        bad = {"sometimes", "[1, 2]"};
      } else if (parameter.kind == scenario::ValueKind::Map || parameter.kind == scenario::ValueKind::Dictionary) {
        bad = {"[1, 2]", "{bandwidth: 10 parsecs, latency: 1us}"};
      } else if (parameter.kind == scenario::ValueKind::List) {
        bad = {"{a: 1}"};
      }
      for (const std::string& value : bad) {
        const std::string error = first_error(with_topology(entry, prefix + value + "}"));
        EXPECT_NE(error.find("entry.yaml:3:"), std::string::npos) << value << ": " << error;
        EXPECT_NE(error.find("topology." + parameter.key), std::string::npos) << value << ": " << error;
      }
    }
  }
}

TEST(Schema, EveryOptimizerEntryAcceptsItsExampleAndRefusesBadValues) {
  const checks::Registries registries = checks::make_builtin_registries();
  for (const std::string& name : registries.optimizers.registration_order()) {
    SCOPED_TRACE(name);
    const auto& entry = registries.optimizers.find(name).factory;
    const auto with = [](const std::string& optimizer) {
      return testing::replace_once(kSweepBase, "optimizer: {learning_rate: 0.5}", "optimizer: " + optimizer);
    };
    const auto s = scenario::read_scenario_text(dtsim::test::scenario_format(), with(entry.example), "entry.yaml");
    EXPECT_EQ(s.training.optimizer.kind.value, name);
    EXPECT_NE(entry.make(s.training.optimizer.learning_rate, s.training.optimizer.parameters, 4), nullptr);
    for (const scenario::SchemaNode& parameter : entry.parameters) {
      SCOPED_TRACE(parameter.key);
      const std::string prefix = "{kind: " + name + ", learning_rate: 0.1, " + parameter.key + ": ";
      for (const std::string bad : {"many}", "-5}", "[1, 2]}"}) {
        const std::string error = first_error(with(prefix + bad));
        EXPECT_NE(error.find("entry.yaml:8:"), std::string::npos) << error;
        EXPECT_NE(error.find("training.optimizer." + parameter.key), std::string::npos) << error;
      }
    }
  }
}

TEST(Schema, EverySlowdownDistributionEntryAcceptsItsExampleAndRefusesBadValues) {
  const auto with = [](const std::string& rule) { return kSweepBase + "stragglers:\n  - " + rule + "\n"; };
  const core::SlowdownRegistry& registry = core::builtin_slowdowns();
  for (const std::string& name : registry.registration_order()) {
    SCOPED_TRACE(name);
    const auto& entry = registry.find(name).factory;
    const auto s = scenario::read_scenario_text(dtsim::test::scenario_format(), with(entry.example), "entry.yaml");
    ASSERT_EQ(s.cluster.random_slowdowns.size(), 1U);
    EXPECT_EQ(s.cluster.random_slowdowns.front().distribution, name);
    EXPECT_GE(entry.mean(s.cluster.random_slowdowns.front().parameters), 1.0);
    for (const scenario::SchemaNode& parameter : entry.parameters) {
      SCOPED_TRACE(parameter.key);
      for (const std::string bad : {"many}", "-5}", "[1, 2]}"}) {
        std::string rule = entry.example;
        rule.replace(rule.find(parameter.key + ": "), std::string::npos, parameter.key + ": " + bad);
        const std::string error = first_error(with(rule));
        EXPECT_NE(error.find("entry.yaml:11:"), std::string::npos) << error;
        EXPECT_NE(error.find("stragglers[0]." + parameter.key), std::string::npos) << error;
      }
    }
  }
}

/// kSweepBase with a data set entry's `data` mapping on its line 5 and the model that trains on it on line 4.
std::string with_data(const datasets::DataPlugin& entry, const std::string& data) {
  const std::string model =
      testing::replace_once(kSweepBase, "model: {kind: logistic_regression}", "model: " + entry.example_model);
  return testing::replace_once(model, "data: {kind: synthetic_classification, samples: 1000, features: 8}",
                               "data: " + data);
}

// Every data set's entry: the `data` it documents reads and makes samples of the shape it announces (files
// its example names lie beside the scenario), and each parameter it declares refuses a value of the wrong
// type or out of its range at the value's file:line:col.
TEST(Schema, EveryDataSetEntryAcceptsItsExampleAndRefusesBadValues) {
  const checks::Registries registries = checks::make_builtin_registries();
  const std::filesystem::path folder = scratch("data_sets");
  std::filesystem::copy_file(kSource / "data/iris.csv", folder / "table.csv");
  write(folder / "corpus.txt", "the cat sat on the mat\nthe dog sat on the log\na cat and a dog\n"
                               "the mat and the log\non the mat the cat sat\n");
  for (const std::string& name : registries.data_sets.registration_order()) {
    SCOPED_TRACE(name);
    const auto& entry = registries.data_sets.find(name).factory;
    write(folder / "entry.yaml", with_data(entry, entry.example));
    const scenario::Scenario s = scenario::read_scenario_file(dtsim::test::scenario_format(), folder / "entry.yaml");
    EXPECT_EQ(s.data.kind.value, name);
    const checks::LoadedData loaded = checks::load_data(s, registries.data_sets);
    EXPECT_GT(loaded.shape.samples, 0U);
    EXPECT_EQ(loaded.data.has_value(), !entry.generated || entry.make == nullptr);
    const models::SplitDataset made = checks::make_data(s, registries.data_sets);
    EXPECT_EQ(made.train.size() + made.validation.size(), loaded.shape.samples);
    for (const scenario::SchemaNode& parameter : entry.parameters) {
      SCOPED_TRACE(parameter.key);
      const std::string prefix = "{kind: " + name + ", " + parameter.key + ": ";
      std::vector<std::string> bad{"[1, 2]"};
      if (parameter.kind == scenario::ValueKind::Integer || parameter.kind == scenario::ValueKind::Number) {
        bad.insert(bad.end(), {"many", "-5"});
      }
      for (const std::string& value : bad) {
        const std::string error = first_error(with_data(entry, prefix + value + "}"));
        EXPECT_NE(error.find("entry.yaml:5:"), std::string::npos) << value << ": " << error;
        EXPECT_NE(error.find("data." + parameter.key), std::string::npos) << value << ": " << error;
      }
    }
  }
}

/// kSweepBase with a model entry's `model` mapping on its line 4 and the data it trains on on line 5 (none,
/// and a number of iterations, for a timing-only layer table).
std::string with_model(const models::ModelPlugin& entry, const std::string& model) {
  std::string text = testing::replace_once(kSweepBase, "model: {kind: logistic_regression}", "model: " + model);
  const std::string data = "data: {kind: synthetic_classification, samples: 1000, features: 8}";
  if (!entry.timing_only()) return testing::replace_once(text, data, "data: " + entry.example_data);
  text = testing::replace_once(text, data, "# no data");
  return testing::replace_once(text, "stop: {epochs: 1}", "stop: {iterations: 2}");
}

// Every model's entry: the `model` it documents reads and builds for the data it documents (or gives its
// layer table), and each parameter it declares refuses a value of the wrong type or out of its range at the
// value's file:line:col.
TEST(Schema, EveryModelEntryAcceptsItsExampleAndRefusesBadValues) {
  const checks::Registries registries = checks::make_builtin_registries();
  for (const std::string& name : registries.models.registration_order()) {
    SCOPED_TRACE(name);
    const auto& entry = registries.models.find(name).factory;
    const scenario::Scenario s = scenario::read_scenario_text(dtsim::test::scenario_format(), with_model(entry, entry.example), "entry.yaml");
    EXPECT_EQ(s.model.kind.value, name);
    EXPECT_EQ(s.model.timing_only, entry.timing_only());
    const core::View section(&s.model.section, "model");
    if (entry.timing_only()) {
      EXPECT_GT(entry.profile(section).parameters(), 0.0);
    } else {
      core::DiagnosticSink sink;
      const auto model =
          checks::make_model(s, checks::load_data(s, registries.data_sets).shape, registries.models, sink);
      EXPECT_TRUE(sink.empty());
      ASSERT_NE(model, nullptr);
      EXPECT_GT(model->parameter_count(), 0U);
    }
    for (const scenario::SchemaNode& parameter : entry.parameters) {
      SCOPED_TRACE(parameter.key);
      const std::string prefix = "{kind: \"" + name + "\", " + parameter.key + ": ";
      std::vector<std::string> bad{"{a: 1}"};
      if (parameter.kind == scenario::ValueKind::Integer || parameter.kind == scenario::ValueKind::Number) {
        bad.insert(bad.end(), {"many", "-5", "[1, 2]"});
      } else if (parameter.kind == scenario::ValueKind::Choice) {
        bad.insert(bad.end(), {"sometimes", "[1, 2]"});
      } else if (parameter.kind == scenario::ValueKind::List) {
        bad.push_back("[0, many]");
      }
      for (const std::string& value : bad) {
        const std::string error = first_error(with_model(entry, prefix + value + "}"));
        EXPECT_NE(error.find("entry.yaml:4:"), std::string::npos) << value << ": " << error;
        EXPECT_NE(error.find("model." + parameter.key), std::string::npos) << value << ": " << error;
      }
    }
  }
}

TEST(Schema, ReferenceDocumentationIsTheGeneratedOne) {
  const std::string doc = slurp(kSource / "docs/scenario-reference.md");
  const std::string begin = "<!-- generated by `dtsim schema --reference`; edit the schema, not this -->\n";
  const std::string end = "<!-- end of generated reference -->";
  const auto from = doc.find(begin);
  const auto to = doc.find(end);
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(doc.substr(from + begin.size(), to - from - begin.size()),
            scenario::reference_markdown(dtsim::test::scenario_format().schema()))
      << "docs/scenario-reference.md is out of date: regenerate its tables with `dtsim schema --reference`";
}

TEST(Schema, CommittedSchemaFileIsTheGeneratedOne) {
  EXPECT_EQ(slurp(kSource / "dtsim.schema.json"), schema_command(false, dtsim::test::scenario_format().registries()))
      << "dtsim.schema.json is out of date: regenerate it with `dtsim schema > dtsim.schema.json`";
}

TEST(Schema, JsonSchemaDeclaresEveryTopLevelKey) {
  const auto schema = nlohmann::json::parse(schema_command(false, dtsim::test::scenario_format().registries()));
  for (const auto& section : dtsim::test::scenario_format().schema().children) {
    EXPECT_TRUE(schema["properties"].contains(section.key)) << section.key;
  }
  EXPECT_EQ(schema["additionalProperties"], false);
  EXPECT_EQ(schema["properties"]["topology"]["properties"]["link"]["properties"]["bandwidth"]["pattern"].get<std::string>().rfind("^", 0), 0U);
}

}  // namespace
}  // namespace dtsim::app
